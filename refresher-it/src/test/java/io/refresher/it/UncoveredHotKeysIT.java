package io.refresher.it;

import static io.refresher.it.HotKeyApps.json;
import static io.refresher.it.HotKeyApps.register;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.refresher.config.RefresherConfiguration;
import io.refresher.testing.AccessReporter;
import io.refresher.testing.TestApp;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Issue 22, point 1 (its API part): {@code GET /v1/hot/uncovered} lists the keys applications read
 * often that nothing covers, hottest first with their rates, and the template pattern that would
 * cover them; a registered key read as often is not listed, and a key stops being listed once a
 * template covers it. Reads are reported through the access-counting protocol, on real Redis and
 * PostgreSQL.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class UncoveredHotKeysIT {

  private static final TestApp APP = HotKeyApps.create("uncovered_hot_keys");
  static final DropwizardAppExtension<RefresherConfiguration> EXTENSION = APP.extension();

  @Test
  void hotKeysNothingCovers_listedWithASuggestedPattern_untilATemplateCoversThem() {
    register(APP, "covered:1");
    try (AccessReporter reads = new AccessReporter(APP.redis())) {
      reads.read("basket:41", 40);
      reads.read("basket:42", 20);
      reads.read("covered:1", 40);

      await("the uncovered hot keys are listed")
          .atMost(Duration.ofSeconds(20))
          .until(() -> keys(uncovered()).containsAll(List.of("basket:41", "basket:42")));
      JsonNode page = uncovered();
      assertThat(keys(page)).as("a registered key is covered").doesNotContain("covered:1");
      assertThat(page.at("/items/0/key").asText()).as("hottest first").isEqualTo("basket:41");
      assertThat(page.at("/items/0/rate").asDouble()).isGreaterThan(page.at("/items/1/rate").asDouble()).isGreaterThanOrEqualTo(5);
      assertThat(page.at("/items/0/suggestedPattern").asText()).isEqualTo("basket:{id}");
      assertThat(page.at("/patterns/0/pattern").asText()).isEqualTo("basket:{id}");
      assertThat(page.at("/patterns/0/keys").asInt()).isEqualTo(2);

      java.io.StringWriter out = new java.io.StringWriter();
      int status =
          io.refresher.cli.RefresherCli.execute(
              new java.io.PrintWriter(out, true), new java.io.PrintWriter(new java.io.StringWriter(), true),
              "get", "uncovered", "--server", "http://127.0.0.1:" + EXTENSION.getLocalPort(), "--token", TestApp.TOKEN);
      assertThat(status).isZero();
      assertThat(out.toString()).as("refresher get uncovered").contains("basket:41").contains("basket:{id}");

      // The suggestion taken: a template with the pattern covers them.
      try (var response = APP.putTemplate("baskets", "{\"pattern\":\"basket:{id}\",\"source\":\"product-by-id\",\"ttl\":\"PT1M\"}")) {
        assertThat(response.getStatus()).as(response.readEntity(String.class)).isEqualTo(201);
      }
      await("covered now, they leave the list")
          .atMost(Duration.ofSeconds(30))
          .until(() -> keys(uncovered()).stream().noneMatch(key -> key.startsWith("basket:")));
    }
  }

  private static JsonNode uncovered() {
    return json(APP.authorized(APP.api("/v1/hot/uncovered").queryParam("limit", "10")).get());
  }

  private static List<String> keys(JsonNode page) {
    List<String> keys = new ArrayList<>();
    page.path("items").forEach(item -> keys.add(item.path("key").asText()));
    return keys;
  }
}
