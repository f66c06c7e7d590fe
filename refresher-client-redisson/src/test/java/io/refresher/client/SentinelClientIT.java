package io.refresher.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.refresher.embedded.EmbeddedRedisSentinelGroup;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The client connected by a {@code redis-sentinel://} URL to a real Sentinel group, through a failover. */
class SentinelClientIT {

  @Test
  void sentinelUrl_loadsAndReadsOnThePrimary_andFollowsAFailover() {
    try (EmbeddedRedisSentinelGroup group = EmbeddedRedisSentinelGroup.start(1, Duration.ofMillis(1000))) {
      String url =
          "redis-sentinel://" + String.join(",", group.sentinelAddresses()) + "/" + EmbeddedRedisSentinelGroup.MASTER_NAME;
      AtomicInteger loads = new AtomicInteger();
      try (RefresherClient client = RefresherClient.builder(url).build()) {
        assertThat(client.get("sentinel:a", Duration.ofMinutes(1), () -> "a" + loads.incrementAndGet())).isEqualTo("a1");
        int primary = group.primaryPort();
        assertThat(group.call(primary, "GET", "sentinel:a")).isEqualTo("a1");
        group.call(primary, "WAIT", "1", "5000");

        group.kill(primary);
        int promoted = group.awaitFailover(primary, Duration.ofSeconds(30));

        // Commands fail while Redisson moves to the new primary, then succeed there.
        String b =
            await()
                .atMost(Duration.ofSeconds(20))
                .ignoreExceptions()
                .until(() -> client.get("sentinel:b", Duration.ofMinutes(1), () -> "b"), "b"::equals);
        assertThat(b).isEqualTo("b");
        assertThat(group.call(promoted, "GET", "sentinel:b")).isEqualTo("b");
        assertThat(client.get("sentinel:a", Duration.ofMinutes(1), () -> "a" + loads.incrementAndGet()))
            .as("the replicated value, read from the new primary")
            .isEqualTo("a1");
      }
    }
  }
}
