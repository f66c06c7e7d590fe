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
 * The Node client's own suite ({@code npm test}: its type check and node's test runner) on a real
 * Redis and a real three-master Redis Cluster: the conformance corpus, the counting, the flush, the
 * single flight, the docs' example. Every test must pass and none may skip.
 */
class NodeClientIT {

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
    ClientRuntimes.node();
    ClientRuntimes.Run run =
        ClientRuntimes.run(
            List.of("npm", "test", "--silent"),
            ClientRuntimes.NODE_CLIENT,
            Map.of(
                "REFRESHER_TEST_REDIS_URL", redis.url(),
                "REFRESHER_TEST_REDIS_CLUSTER_URL", "redis://127.0.0.1:" + cluster.ports().get(0)),
            Duration.ofMinutes(5));
    LoggerFactory.getLogger(NodeClientIT.class).info("npm test:\n{}", run.output());
    run.requireSuccess();
    assertThat(run.output()).containsPattern("# pass [1-9]").contains("# fail 0").contains("# skipped 0").contains("# todo 0");
  }
}
