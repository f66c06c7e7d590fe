package io.refresher.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.refresher.testing.ClientRuntimes;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The alert rules' unit tests ({@code deploy/monitoring/refresher-rules.test.yml}) run with
 * Prometheus's own evaluator, {@code promtool test rules}: series that must fire an alert (its
 * labels and annotations checked) and series that must not. promtool comes from Debian's {@code
 * prometheus} package, installed when missing; the test fails, never skips, when it cannot be.
 */
class AlertRuleTestsIT {

  private static final Path MONITORING = ClientRuntimes.ROOT.resolve("deploy/monitoring");

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
}
