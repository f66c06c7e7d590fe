package io.refresher.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RegistrationsFileTest {

  @Test
  void templatesAndKeys_readAsTheApiTakesThem() throws Exception {
    Registrations read =
        RegistrationsFile.parse(
            "r.yaml",
            """
            templates:
              products:
                pattern: "product:{id}"
                source: product-by-id
                ttl: PT10M
                params: {currency: EUR}
            keys:
              "time:now":
                source: server-time
                ttl: PT10S
                policy: always
              "product:7":
                source: product-by-id
                params: {id: 7}
                ttl: PT1M
            """);
    assertThat(read.templates()).containsOnlyKeys("products");
    assertThat(read.templates().get("products").pattern()).isEqualTo("product:{id}");
    assertThat(read.templates().get("products").params()).isEqualTo(Map.of("currency", "EUR"));
    assertThat(read.keys()).containsOnlyKeys("time:now", "product:7");
    assertThat(read.keys().get("time:now").policy()).isEqualTo("always");
    assertThat(read.keys().get("time:now").ttl()).isEqualTo(Duration.ofSeconds(10));
    assertThat(read.keys().get("product:7").policy()).as("left to the service's default").isNull();
    assertThat(read.keys().get("product:7").params()).isEqualTo(Map.of("id", 7));
  }

  @Test
  void emptyFile_anEmptyRegistry() throws Exception {
    Registrations read = RegistrationsFile.parse("empty.yaml", "");
    assertThat(read.templates()).isEmpty();
    assertThat(read.keys()).isEmpty();
  }

  @Test
  void everyMistake_reportedAtOnceWithItsPlace() {
    assertThatThrownBy(
            () ->
                RegistrationsFile.parse(
                    "bad.yaml",
                    """
                    template: {}
                    templates:
                      products:
                        source: product-by-id
                        ttl: 10 minutes
                    keys:
                      "time:now":
                        source: server-time
                        ttl: PT10S
                        polcy: always
                      other:
                        ttl: PT1M
                        policy: sometimes
                    """))
        .isInstanceOf(RegistrationsFile.InvalidFileException.class)
        .hasMessageContaining("template: unknown field")
        .hasMessageContaining("templates.products.pattern: missing")
        .hasMessageContaining("templates.products.ttl: must be an ISO-8601 duration such as PT5M, not '10 minutes'")
        .hasMessageContaining("keys.\"time:now\".polcy: unknown field")
        .hasMessageContaining("keys.other.source: missing")
        .hasMessageContaining("keys.other.policy: must be hot or always");
  }

  @Test
  void notYaml_refused() {
    assertThatThrownBy(() -> RegistrationsFile.parse("x.yaml", "keys: [unclosed"))
        .isInstanceOf(RegistrationsFile.InvalidFileException.class)
        .hasMessageContaining("x.yaml: not valid YAML");
  }
}
