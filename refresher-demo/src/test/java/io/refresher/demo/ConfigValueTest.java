package io.refresher.demo;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.util.List;
import org.junit.jupiter.api.Test;

class ConfigValueTest {

  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  @Test
  void apply_setsValuesAtTheirPaths_keepsTheRest_createsMissingBlocks() throws Exception {
    String yaml =
        "database:\n  url: \"jdbc:postgresql://h/db\"\n  maxPoolSize: 6\n"
            + "logging:\n  loggers:\n    io.refresher: WARN\n";

    String applied =
        ConfigValue.apply(
            yaml,
            List.of(
                ConfigValue.of(100, "database", "maxQueriesPerSecond"),
                ConfigValue.of("2s", "access", "snapshotInterval"),
                ConfigValue.of("INFO", "logging", "loggers", "io.refresher.prewarm")));

    JsonNode root = YAML.readTree(applied);
    assertThat(root.at("/database/maxQueriesPerSecond").asInt()).isEqualTo(100);
    assertThat(root.at("/database/url").asText()).isEqualTo("jdbc:postgresql://h/db");
    assertThat(root.at("/database/maxPoolSize").asInt()).isEqualTo(6);
    assertThat(root.at("/access/snapshotInterval").asText()).isEqualTo("2s");
    assertThat(root.path("logging").path("loggers").path("io.refresher").asText()).isEqualTo("WARN");
    assertThat(root.path("logging").path("loggers").path("io.refresher.prewarm").asText()).isEqualTo("INFO");
  }

  @Test
  void name_isTheDottedPath() {
    assertThat(ConfigValue.of(0.05, "access", "hotThreshold").name()).isEqualTo("access.hotThreshold");
  }
}
