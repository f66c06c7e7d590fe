package io.refresher.it.clients;

import static org.assertj.core.api.Assertions.assertThat;

import io.refresher.testing.ClientRuntimes;
import io.refresher.testing.ClientSuiteRedis;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * The Python client's own suite (pytest, clients/python/tests) on a real Redis and a real
 * three-master Redis Cluster: the conformance corpus, the counting, the flush, the single flight,
 * the docs' example. Every test must pass and none may skip.
 */
class PythonClientIT {

  private static ClientSuiteRedis servers;

  @BeforeAll
  static void start() {
    servers = ClientSuiteRedis.start();
  }

  @AfterAll
  static void stop() {
    servers.close();
  }

  @Test
  void theSuitePasses_withNothingSkipped() {
    String python = ClientRuntimes.python();
    ClientRuntimes.Run run =
        ClientRuntimes.run(
            List.of(python, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", "tests"),
            ClientRuntimes.PYTHON_CLIENT,
            withNoBytecode(servers.environment()),
            Duration.ofMinutes(5));
    LoggerFactory.getLogger(PythonClientIT.class).info("pytest:\n{}", run.output());
    run.requireSuccess();
    assertThat(run.output()).containsPattern("\\d+ passed").doesNotContainPattern("\\d+ (skipped|xfailed|deselected)");
  }

  /** Python writes no __pycache__ into the source tree. */
  private static Map<String, String> withNoBytecode(Map<String, String> environment) {
    Map<String, String> all = new java.util.HashMap<>(environment);
    all.put("PYTHONDONTWRITEBYTECODE", "1");
    return all;
  }
}
