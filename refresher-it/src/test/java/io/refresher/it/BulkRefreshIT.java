package io.refresher.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.refresher.config.RefresherConfiguration;
import io.refresher.testing.TestApp;
import jakarta.ws.rs.client.Entity;
import jakarta.ws.rs.core.Response;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code POST /v1/refresh} on the real service: keys refreshed now by list, by a template's
 * parameters and by prefix (paged), each through the refresh path within the datasource's load
 * bound, with what became of each; bad requests refused with the field named, refreshing nothing.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class BulkRefreshIT {

  private static final Logger LOG = LoggerFactory.getLogger(BulkRefreshIT.class);
  private static final ObjectMapper JSON = new ObjectMapper();
  /** At most this many source queries at once on the default datasource, across replicas. */
  private static final int MAX_CONCURRENT = 2;

  private static final TestApp APP =
      TestApp.create(
          "bulk_refresh",
          List.of(
              "CREATE TABLE bulk_item (id bigint PRIMARY KEY, v text NOT NULL)",
              "INSERT INTO bulk_item SELECT g, 'old' FROM generate_series(1, 20) g"),
          "database.maxConcurrent", Integer.toString(MAX_CONCURRENT),
          "database.maxWait", "30s",
          // 150 ms per run, so that runs overlap and the bound has something to hold back
          "sources.bulk-item.sql", "SELECT v || '-' || pg_sleep(0.15)::text AS bulk_source FROM bulk_item WHERE id = :id",
          "sources.bulk-item.params.id", "long",
          "sources.bulk-item.result", "scalar",
          "sources.bulk-item.timeout", "4s"); // below the 5 s lock lease
  static final DropwizardAppExtension<RefresherConfiguration> EXTENSION = APP.extension();

  @BeforeAll
  static void register() {
    for (int id = 1; id <= 12; id++) {
      try (Response response =
          APP.putKey("bulk:" + id, "{\"source\":\"bulk-item\",\"params\":{\"id\":" + id + "},\"ttl\":\"PT10M\",\"policy\":\"always\"}")) {
        assertThat(response.getStatus()).isEqualTo(201);
      }
    }
    try (Response response =
        APP.putTemplate("bulkt", "{\"pattern\":\"bulkt:{id}\",\"source\":\"bulk-item\",\"ttl\":\"PT10M\"}")) {
      assertThat(response.getStatus()).isEqualTo(201);
    }
  }

  @Test
  void byKeys_refreshesEachOnce_reportsUnregistered_andHoldsTheLoadBound() throws Exception {
    APP.database().execute("UPDATE bulk_item SET v = 'listed' WHERE id BETWEEN 1 AND 8");
    AtomicInteger mostAtOnce = new AtomicInteger();
    ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor();
    JsonNode answer;
    try {
      sampler.scheduleAtFixedRate(
          () -> {
            long running =
                APP.database().queryLong(
                    "SELECT count(*) FROM pg_stat_activity WHERE state = 'active' AND query LIKE '%bulk_source%' AND query NOT LIKE '%pg_stat_activity%'");
            mostAtOnce.accumulateAndGet((int) running, Math::max);
          },
          0,
          10,
          TimeUnit.MILLISECONDS);
      List<String> keys = new ArrayList<>(IntStream.rangeClosed(1, 8).mapToObj(id -> "bulk:" + id).toList());
      keys.add("bulk:3"); // a duplicate is refreshed once
      keys.add("nothing:here");
      answer = post("{\"keys\":" + JSON.writeValueAsString(keys) + "}", 200);
    } finally {
      sampler.shutdownNow();
    }
    LOG.info("refresh of 8 keys with at most {} source queries at once (bound {}): {}", mostAtOnce.get(), MAX_CONCURRENT, answer.path("counts"));

    assertThat(answer.path("counts").path("refreshed").asInt()).isEqualTo(8);
    assertThat(answer.path("counts").path("not_registered").asInt()).isEqualTo(1);
    assertThat(answer.path("results")).hasSize(9);
    assertThat(answer.path("results").get(8).path("key").asText()).isEqualTo("nothing:here");
    assertThat(answer.path("results").get(8).path("outcome").asText()).isEqualTo("not_registered");
    for (int id = 1; id <= 8; id++) {
      assertThat(APP.get("bulk:" + id)).as("bulk:%d", id).startsWith("listed-");
    }
    assertThat(APP.get("bulk:9")).as("not asked for").startsWith("old-");
    assertThat(mostAtOnce.get()).as("source queries running at once").isLessThanOrEqualTo(MAX_CONCURRENT);
  }

  @Test
  void byTemplateParameters_refreshesTheTemplatesKeys() throws Exception {
    APP.database().execute("UPDATE bulk_item SET v = 'templated' WHERE id IN (15, 16)");

    JsonNode answer = post("{\"template\":\"bulkt\",\"params\":[{\"id\":15},{\"id\":\"16\"}]}", 200);

    assertThat(answer.path("counts").path("refreshed").asInt()).as("answer %s", answer).isEqualTo(2);
    assertThat(answer.path("results").get(0).path("key").asText()).isEqualTo("bulkt:15");
    assertThat(APP.get("bulkt:15")).startsWith("templated-");
    assertThat(APP.get("bulkt:16")).startsWith("templated-");
  }

  @Test
  void byPrefix_pagesOverTheRegistry() throws Exception {
    APP.database().execute("UPDATE bulk_item SET v = 'prefixed' WHERE id BETWEEN 1 AND 12");
    List<String> refreshed = new ArrayList<>();
    String after = null;
    int pages = 0;
    do {
      String request = "{\"prefix\":\"bulk:\",\"limit\":5" + (after == null ? "" : ",\"after\":" + JSON.writeValueAsString(after)) + "}";
      JsonNode answer = post(request, 200);
      answer.path("results").forEach(result -> {
        assertThat(result.path("outcome").asText()).isEqualTo("refreshed");
        refreshed.add(result.path("key").asText());
      });
      after = answer.path("next").isNull() ? null : answer.path("next").asText(null);
      pages++;
    } while (after != null && pages < 10);

    assertThat(pages).isEqualTo(3);
    assertThat(refreshed).hasSize(12).doesNotHaveDuplicates().allMatch(key -> key.startsWith("bulk:"));
    for (int id = 1; id <= 12; id++) {
      assertThat(APP.get("bulk:" + id)).startsWith("prefixed-");
    }
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "nothing to refresh | {} | 422 | body",
        "two modes | {\"keys\":[\"bulk:1\"],\"prefix\":\"bulk:\"} | 422 | body",
        "no keys | {\"keys\":[]} | 422 | keys",
        "a reserved key | {\"keys\":[\"bulk:1\",\"refresher:x\"]} | 422 | keys[1]",
        "a null key | {\"keys\":[null]} | 422 | keys[0]",
        "unknown template | {\"template\":\"no-such\",\"params\":[{\"id\":1}]} | 404 | template",
        "template without params | {\"template\":\"bulkt\"} | 422 | params",
        "a placeholder missing | {\"template\":\"bulkt\",\"params\":[{\"id\":1},{\"other\":2}]} | 422 | params[1]",
        "a separator in a value | {\"template\":\"bulkt\",\"params\":[{\"id\":\"1:2\"}]} | 422 | params[0]",
        "params without template | {\"keys\":[\"bulk:1\"],\"params\":[{\"id\":1}]} | 422 | params",
        "empty prefix | {\"prefix\":\"\"} | 422 | prefix",
        "limit zero | {\"prefix\":\"bulk:\",\"limit\":0} | 422 | limit",
        "limit too large | {\"prefix\":\"bulk:\",\"limit\":501} | 422 | limit",
        "after without prefix | {\"keys\":[\"bulk:1\"],\"after\":\"x\"} | 422 | after",
        "unknown field | {\"keys\":[\"bulk:1\"],\"force\":true} | 400 | force",
        "keys not a list | {\"keys\":\"bulk:1\"} | 400 | keys"
      })
  void invalidRequests_refusedWithTheFieldNamed_andNothingRefreshed(String rule, String body, int status, String field)
      throws Exception {
    String before = APP.get("bulk:1");

    try (Response response = APP.authorized(APP.api("/v1/refresh")).post(Entity.json(body))) {
      String text = response.readEntity(String.class);
      assertThat(response.getStatus()).as("status; body %s", text).isEqualTo(status);
      JsonNode error = JSON.readTree(text);
      assertThat(error.path("code").asInt()).isEqualTo(status);
      List<String> fields = new ArrayList<>();
      error.path("errors").forEach(e -> fields.add(e.path("field").asText()));
      if (status != 404) {
        assertThat(fields).as("fields named in %s", text).contains(field);
      } else {
        assertThat(error.path("message").asText()).contains("no-such");
      }
    }
    assertThat(APP.get("bulk:1")).as("nothing refreshed").isEqualTo(before);
  }

  @Test
  void tooManyKeys_refused() throws Exception {
    List<String> keys = IntStream.range(0, 501).mapToObj(i -> "many:" + i).toList();
    try (Response response = APP.authorized(APP.api("/v1/refresh")).post(Entity.json(JSON.writeValueAsString(java.util.Map.of("keys", keys))))) {
      assertThat(response.getStatus()).isEqualTo(422);
      assertThat(response.readEntity(String.class)).contains("\"keys\"").contains("1 to 500");
    }
  }

  @Test
  void withoutToken_401() {
    try (Response response = APP.api("/v1/refresh").request().post(Entity.json("{\"keys\":[\"bulk:1\"]}"))) {
      assertThat(response.getStatus()).isEqualTo(401);
    }
  }

  private static JsonNode post(String body, int status) throws Exception {
    try (Response response = APP.authorized(APP.api("/v1/refresh")).post(Entity.json(body))) {
      String text = response.readEntity(String.class);
      assertThat(response.getStatus()).as("status; body %s", text).isEqualTo(status);
      return JSON.readTree(text);
    }
  }
}
