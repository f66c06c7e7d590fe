package io.refresher.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.refresher.testing.ClientRuntimes;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The alert rules' unit tests ({@code deploy/monitoring/refresher-rules.test.yml}) run with
 * Prometheus's own evaluator, {@code promtool test rules}: series that must fire an alert (its
 * labels and annotations checked) and series that must not. promtool comes from Debian's {@code
 * prometheus} package, installed when missing; the test fails, never skips, when it cannot be.
 *
 * <p>Every alert has both kinds of case, and none passes by accident: each alert's expression in
 * turn is replaced by one that never fires, and the tests must then fail on that alert.
 */
class AlertRuleTestsIT {

  private static final Path MONITORING = ClientRuntimes.ROOT.resolve("deploy/monitoring");
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
  /** An expression that never has a result: the planted wrong one. */
  private static final String NEVER = "vector(0) > 1";

  @TempDir Path dir;

  @Test
  void promtoolTestRules_everyAlertTestPasses() {
    String promtool = ClientRuntimes.promtool();

    ClientRuntimes.Run checked =
        ClientRuntimes.run(List.of(promtool, "check", "rules", "refresher-rules.yml"), MONITORING, Map.of(), Duration.ofMinutes(1));
    assertThat(checked.exitCode()).as(checked.output()).isZero();

    ClientRuntimes.Run tested =
        ClientRuntimes.run(
            List.of(promtool, "test", "rules", "refresher-rules.test.yml"), MONITORING, Map.of(), Duration.ofMinutes(1));
    assertThat(tested.exitCode()).as(tested.output()).isZero();
    assertThat(tested.output()).contains("SUCCESS");
  }

  @Test
  void everyAlert_hasACaseThatFiresIt_andOneThatDoesNot() throws IOException {
    Set<String> alerts = alerts(YAML.readTree(MONITORING.resolve("refresher-rules.yml").toFile()));
    Set<String> firing = new TreeSet<>();
    Set<String> quiet = new TreeSet<>();
    for (JsonNode test : YAML.readTree(MONITORING.resolve("refresher-rules.test.yml").toFile()).path("tests")) {
      for (JsonNode check : test.path("alert_rule_test")) {
        String alert = check.path("alertname").asText();
        (check.path("exp_alerts").isEmpty() ? quiet : firing).add(alert);
      }
    }
    assertThat(alerts).hasSizeGreaterThan(10);
    assertThat(difference(alerts, firing)).as("alerts without a case that fires them").isEmpty();
    assertThat(difference(alerts, quiet)).as("alerts without a case where they must not fire").isEmpty();
  }

  @Test
  void aPlantedWrongExpression_failsTheTests_forEveryAlert() throws IOException {
    String promtool = ClientRuntimes.promtool();
    JsonNode rules = YAML.readTree(MONITORING.resolve("refresher-rules.yml").toFile());
    Files.copy(MONITORING.resolve("refresher-rules.test.yml"), dir.resolve("refresher-rules.test.yml"));
    List<String> undetected = new ArrayList<>();
    for (String alert : alerts(rules)) {
      JsonNode planted = rules.deepCopy();
      planted.path("groups").forEach(group -> group.path("rules").forEach(rule -> {
        if (alert.equals(rule.path("alert").asText())) {
          ((ObjectNode) rule).put("expr", NEVER);
        }
      }));
      YAML.writeValue(dir.resolve("refresher-rules.yml").toFile(), planted);
      ClientRuntimes.Run tested =
          ClientRuntimes.run(List.of(promtool, "test", "rules", "refresher-rules.test.yml"), dir, Map.of(), Duration.ofMinutes(1));
      if (tested.exitCode() == 0 || !tested.output().contains(alert)) {
        undetected.add(alert);
      }
    }
    assertThat(undetected).as("alerts whose expression was replaced by one that never fires, and the tests still passed").isEmpty();
  }

  private static Set<String> alerts(JsonNode rules) {
    Set<String> alerts = new TreeSet<>();
    rules.path("groups").forEach(group -> group.path("rules").forEach(rule -> {
      if (rule.hasNonNull("alert")) {
        alerts.add(rule.path("alert").asText());
      }
    }));
    return alerts;
  }

  private static Set<String> difference(Set<String> all, Set<String> covered) {
    Set<String> missing = new TreeSet<>(all);
    missing.removeAll(covered);
    return missing;
  }
}
