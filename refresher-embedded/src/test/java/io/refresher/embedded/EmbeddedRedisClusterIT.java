package io.refresher.embedded;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A started cluster is ready on every node: no node answers {@code CLUSTERDOWN} right after
 * {@link EmbeddedRedisCluster#start()} returns (one did, in a clean-clone run of RedisClusterIT,
 * to the service starting next).
 */
class EmbeddedRedisClusterIT {

  @Test
  void start_returnsWhenEveryNodeServesAllSlots() throws Exception {
    try (EmbeddedRedisCluster cluster = EmbeddedRedisCluster.start()) {
      for (int port : cluster.ports()) {
        try (RespConnection node = RespConnection.open(port, Duration.ofSeconds(2))) {
          String info = String.valueOf(node.call("CLUSTER", "INFO"));
          assertThat(info).as("node :%d", port).contains("cluster_state:ok").contains("cluster_slots_ok:16384");
          // A command to any slot is answered or redirected (MOVED), never refused as CLUSTERDOWN.
          for (String key : List.of("a", "b", "c", "d", "e")) {
            try {
              node.call("GET", key);
            } catch (RespConnection.ErrorReply redirected) {
              assertThat(redirected.getMessage()).as("GET %s on :%d", key, port).startsWith("MOVED");
            }
          }
        }
      }
    }
  }
}
