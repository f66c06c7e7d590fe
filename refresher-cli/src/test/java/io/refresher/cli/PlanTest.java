package io.refresher.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.refresher.client.admin.KeySpec;
import io.refresher.client.admin.TemplateSpec;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PlanTest {

  private static final TemplateSpec PRODUCTS = new TemplateSpec("product:{id}", "product-by-id", Map.of(), Duration.ofMinutes(10));
  private static final KeySpec NOW = new KeySpec("server-time", Map.of(), Duration.ofSeconds(10), "always");
  private static final KeySpec SEVEN = KeySpec.of("product-by-id", Map.of("id", 7), Duration.ofMinutes(1));

  @Test
  void nothingRegistered_everythingCreated_templatesFirst() {
    Plan plan = Plan.of(Registrations.of(Map.of("products", PRODUCTS), Map.of("time:now", NOW)), Registrations.of(Map.of(), Map.of()), false);
    assertThat(plan.steps()).extracting(Plan.Step::line).containsExactly("+ template products", "+ key time:now");
  }

  @Test
  void sameAsRegistered_unchanged_evenWrittenDifferently() {
    Registrations wanted = Registrations.of(Map.of("products", PRODUCTS), Map.of("product:7", SEVEN));
    // As the service lists them: a TTL of PT600S is PT10M, 7 read as a long is 7, the default policy named.
    Registrations registered =
        Registrations.of(
            Map.of("products", new TemplateSpec("product:{id}", "product-by-id", Map.of(), Duration.ofSeconds(600))),
            Map.of("product:7", new KeySpec("product-by-id", Map.of("id", 7L), Duration.ofSeconds(60), "hot")));
    Plan plan = Plan.of(wanted, registered, true);
    assertThat(plan.empty()).isTrue();
    assertThat(plan.unchangedTemplates() + plan.unchangedKeys()).isEqualTo(2);
  }

  @Test
  void differences_replacedNamingEachField() {
    Registrations wanted = Registrations.of(Map.of(), Map.of("product:7", SEVEN));
    Registrations registered =
        Registrations.of(Map.of(), Map.of("product:7", new KeySpec("product-by-id", Map.of("id", 8), Duration.ofMinutes(5), "always")));
    assertThat(Plan.of(wanted, registered, false).steps())
        .extracting(Plan.Step::line)
        .containsExactly("~ key product:7 (params: {\"id\":8} -> {\"id\":7}; ttl: PT5M -> PT1M; policy: always -> hot)");
  }

  @Test
  void prune_deletesOnlyWhatTheFileDoesNotName_keysBeforeTemplates() {
    Registrations wanted = Registrations.of(Map.of(), Map.of("time:now", NOW));
    Registrations registered = Registrations.of(Map.of("products", PRODUCTS), Map.of("time:now", NOW, "product:7", SEVEN));
    assertThat(Plan.of(wanted, registered, false).empty()).as("without --prune").isTrue();
    assertThat(Plan.of(wanted, registered, true).steps())
        .extracting(Plan.Step::line)
        .containsExactly("- key product:7", "- template products");
  }
}
