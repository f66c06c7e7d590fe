package io.refresher.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;
import static org.awaitility.Awaitility.await;

import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.refresher.config.RefresherConfiguration;
import io.refresher.testing.RealServers;
import io.refresher.testing.TestApp;
import io.refresher.testing.TestDatabase;
import io.refresher.testing.TestRedis;
import jakarta.ws.rs.core.Response;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Redis stalls: its process is frozen with SIGSTOP for 15 s (connections stay open, nothing
 * answers) and resumed. Commands sent during the stall time out on the client but run in Redis when
 * it resumes: claims of due keys, lock acquisitions. None of them may strand a key for a lease:
 * every key is fresh again (its logical expiry in the future) within 2 s of the resume.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class RedisStallIT {

  private static final int KEYS = 30;
  private static final Duration STALL = Duration.ofSeconds(15);
  // The production leases (30 s), so that a stranded claim or lock would show.
  private static final String[] OVERRIDES = {
    "scheduler.claimLease", "30s",
    "refresh.lockLease", "30s",
    "refresh.staleGrace", "2m",
    "redis.timeout", "1s"
  };

  private static final TestDatabase DATABASE = RealServers.newDatabase("redis_stall");
  private static final TestRedis REDIS = RealServers.newRedis();
  private static final TestApp APP = TestApp.on("redis_stall", DATABASE, REDIS, OVERRIDES);
  static final DropwizardAppExtension<RefresherConfiguration> EXTENSION = APP.extension();

  @Test
  void redisFrozenFor15s_everyKeyFreshAgainWithin2sOfTheResume() {
    assumeThat(REDIS.supportsProcessFaults()).as("needs a Redis process to freeze").isTrue();
    List<String> keys = new ArrayList<>();
    for (int i = 1; i <= KEYS; i++) {
      String key = "stall:" + i;
      keys.add(key);
      try (Response response =
          APP.putKey(key, "{\"source\":\"counted\",\"params\":{},\"ttl\":\"PT5S\",\"policy\":\"always\"}")) {
        assertThat(response.getStatus()).isEqualTo(201);
      }
    }
    await("a first refresh cycle").atMost(Duration.ofSeconds(20)).until(() -> allFresh(keys));

    Instant resumedAt;
    REDIS.freeze();
    try {
      Instant frozenAt = Instant.now();
      await("the stall lasts " + STALL)
          .atMost(STALL.plusSeconds(5))
          .pollInterval(Duration.ofMillis(100))
          .until(() -> !Instant.now().isBefore(frozenAt.plus(STALL)));
    } finally {
      REDIS.thaw();
      resumedAt = Instant.now();
    }

    await("every key fresh again")
        .atMost(Duration.ofSeconds(40))
        .pollInterval(Duration.ofMillis(50))
        .ignoreExceptions()
        .until(() -> allFresh(keys));
    long millis = Duration.between(resumedAt, Instant.now()).toMillis();
    System.out.printf(
        "stall: every key fresh %d ms after the resume; claims recovered %d, dropped %d%n",
        millis, APP.parts().dispatcher().adoptedClaims(), APP.parts().dispatcher().droppedClaims());
    assertThat(millis).as("ms after the resume until every key was fresh").isLessThanOrEqualTo(2000);
  }

  private static boolean allFresh(List<String> keys) {
    long now = System.currentTimeMillis();
    for (String key : keys) {
      Map<String, String> meta = APP.meta(key);
      String expiresAt = meta.get("expiresAt");
      if (expiresAt == null || Long.parseLong(expiresAt) <= now) {
        return false;
      }
    }
    return true;
  }
}
