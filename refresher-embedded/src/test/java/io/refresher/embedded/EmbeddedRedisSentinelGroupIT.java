package io.refresher.embedded;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The Sentinel group fails over as a production one does, and can be made to lose the last writes. */
class EmbeddedRedisSentinelGroupIT {

  @Test
  void primaryKilled_sentinelsPromoteAReplicaThatMissedTheWritesAfterTheLinksWereCut() {
    try (EmbeddedRedisSentinelGroup group = EmbeddedRedisSentinelGroup.start(2, Duration.ofMillis(1000))) {
      int primary = group.primaryPort();
      assertThat(primary).isEqualTo(group.serverPorts().get(0));
      assertThat(group.sentinelAddresses()).hasSize(3);
      group.call(primary, "SET", "k", "v1");
      group.call(primary, "WAIT", "2", "5000");
      List<Integer> replicas = group.replicaPorts();
      assertThat(replicas).hasSize(2);
      for (int replica : replicas) {
        assertThat(group.call(replica, "GET", "k")).isEqualTo("v1");
      }
      String oldRunId = runId(group, primary);

      replicas.forEach(group::freeze);
      try {
        group.cutReplicationLinks(primary);
        group.call(primary, "SET", "k", "v2");
        group.kill(primary);
      } finally {
        replicas.forEach(group::thaw);
      }
      int promoted = group.awaitFailover(primary, Duration.ofSeconds(30));

      assertThat(replicas).contains(promoted);
      assertThat(group.call(promoted, "GET", "k")).isEqualTo("v1");
      assertThat(runId(group, promoted)).isNotEqualTo(oldRunId);
      assertThat(group.info(promoted, "replication")).contains("role:master");
    }
  }

  @Test
  void close_killsEveryProcess() {
    List<Long> pids;
    EmbeddedRedisSentinelGroup group = EmbeddedRedisSentinelGroup.start(1, Duration.ofMillis(1000));
    try {
      pids =
          java.util.stream.Stream.concat(group.serverPorts().stream(), group.sentinelPorts().stream())
              .map(group::pid)
              .toList();
      group.freeze(group.sentinelPorts().get(0));
    } finally {
      group.close();
    }
    assertThat(pids).hasSize(5);
    for (long pid : pids) {
      assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)).as("pid %d", pid).isFalse();
    }
  }

  private static String runId(EmbeddedRedisSentinelGroup group, int port) {
    return group.info(port, "server").lines().filter(line -> line.startsWith("run_id:")).findFirst().orElseThrow();
  }
}
