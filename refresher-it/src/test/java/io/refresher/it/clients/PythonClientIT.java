package io.refresher.it.clients;

import static org.assertj.core.api.Assertions.assertThat;

import io.refresher.embedded.EmbeddedRedisCluster;
import io.refresher.testing.ClientRuntimes;
import io.refresher.testing.RealServers;
import io.refresher.testing.TestRedis;
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
 * the docs' example. Every test must pass and
 * none may skip.
 */
class PythonClientIT {

  private static TestRedis redis;
  private static EmbeddedRedisCluster cluster;

  @BeforeAll
  static void redis() {
    redis = RealServers.newRedis();
    cluster = EmbeddedRedisCluster.start();
  }

  @AfterAll
  static void stop() {
    try {
      redis.close();
    } finally {
      cluster.close();
    }
  }

  @Test
  void theSuitePasses_withNothingSkipped() {
    String python = ClientRuntimes.python();
    ClientRuntimes.Run run =
        ClientRuntimes.run(
            List.of(python, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", "tests"),
            ClientRuntimes.PYTHON_CLIENT,
            Map.of(
                "REFRESHER_TEST_REDIS_URL", redis.url(),
                "REFRESHER_TEST_REDIS_CLUSTER_URL", "redis://127.0.0.1:" + cluster.ports().get(0),
                "PYTHONDONTWRITEBYTECODE", "1"),
            Duration.ofMinutes(5));
    LoggerFactory.getLogger(PythonClientIT.class).info("pytest:\n{}", run.output());
    run.requireSuccess();
    assertThat(run.output()).containsPattern("\\d+ passed").doesNotContainPattern("\\d+ (skipped|xfailed|deselected)");
  }
}
