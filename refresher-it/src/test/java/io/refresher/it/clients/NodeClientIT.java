package io.refresher.it.clients;

import static org.assertj.core.api.Assertions.assertThat;

import io.refresher.testing.ClientRuntimes;
import io.refresher.testing.ClientSuiteRedis;
import java.time.Duration;
import java.util.List;
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
    ClientRuntimes.node();
    ClientRuntimes.Run run =
        ClientRuntimes.run(
            List.of("npm", "test", "--silent"),
            ClientRuntimes.NODE_CLIENT,
            servers.environment(),
            Duration.ofMinutes(5));
    LoggerFactory.getLogger(NodeClientIT.class).info("npm test:\n{}", run.output());
    run.requireSuccess();
    assertThat(run.output()).containsPattern("# pass [1-9]").contains("# fail 0").contains("# skipped 0").contains("# todo 0");
  }
}
