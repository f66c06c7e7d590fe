package io.refresher.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.refresher.config.RefresherConfiguration;
import io.refresher.testing.RealServers;
import io.refresher.testing.RedisPause;
import io.refresher.testing.TestApp;
import io.refresher.testing.TestDatabase;
import io.refresher.testing.TestRedis;
import jakarta.ws.rs.core.Response;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Issue 18, point 3: short Redis pauses ({@code DEBUG SLEEP 1.5}, three times 10 s apart) with
 * {@code redis.timeout: 1s}. Redisson sends a script whose reply is late once more, so claims,
 * renewals, locks and writes ran twice; the second claim answered other keys than the first had
 * taken, and those waited out the 30 s claim lease (seen: max value age 33.7 s, 44 of 64 keys
 * older than their TTL). A value may now be older than its TTL by at most the pause it was due in
 * (a refresh cannot run while Redis sleeps), never by a lease.
 *
 * <p>{@code -Drefresher.shortPause.rounds=N} repeats the three pauses N times (default 1).
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class RedisShortPauseIT {

  private static final int KEYS = 64;
  private static final Duration TTL = Duration.ofSeconds(5);
  private static final Duration PAUSE = Duration.ofMillis(1_500);
  private static final Duration APART = Duration.ofSeconds(10);
  private static final int ROUNDS = Integer.getInteger("refresher.shortPause.rounds", 1);

  // The production leases (30 s), so that a stranded claim or lock shows.
  private static final String[] OVERRIDES = {
    "scheduler.claimLease", "30s",
    "refresh.lockLease", "30s",
    "redis.timeout", "1s"
  };

  private static final TestDatabase DATABASE = RealServers.newDatabase("redis_short_pause");
  private static final TestRedis REDIS = RealServers.newRedis();
  private static final TestApp APP = TestApp.on("redis_short_pause", DATABASE, REDIS, OVERRIDES);
  static final DropwizardAppExtension<RefresherConfiguration> EXTENSION = APP.extension();

  @Test
  void threeShortPauses_noValueOlderThanItsTtlPlusThePause() throws Exception {
    List<String> keys = new ArrayList<>();
    for (int i = 1; i <= KEYS; i++) {
      String key = "pause:" + i;
      keys.add(key);
      try (Response response =
          APP.putKey(key, "{\"source\":\"counted\",\"params\":{},\"ttl\":\"PT5S\",\"policy\":\"always\"}")) {
        assertThat(response.getStatus()).isEqualTo(201);
      }
    }
    org.awaitility.Awaitility.await("a first refresh of every key")
        .atMost(Duration.ofSeconds(20))
        .until(() -> oldest(keys).stale() == 0);

    List<String> rounds = new ArrayList<>();
    long worstAge = 0;
    int worstStale = 0;
    for (int round = 1; round <= ROUNDS; round++) {
      Sample worst = pausedThreeTimes(keys);
      rounds.add("round " + round + ": oldest " + worst.oldestMillis() + " ms, " + worst.stale() + " keys older than TTL");
      worstAge = Math.max(worstAge, worst.oldestMillis());
      worstStale = Math.max(worstStale, worst.stale());
    }
    System.out.printf(
        "short pauses: %s; claims recovered %d, dropped %d%n",
        rounds, APP.parts().dispatcher().adoptedClaims(), APP.parts().dispatcher().droppedClaims());
    // A key due within a pause is refreshed after it: its value may be older than its TTL by up
    // to the pause (seen with the fix: oldest 6.1 s), never by a claim or lock lease (30 s).
    assertThat(worstAge)
        .as("oldest value age (ms), %d keys older than TTL at worst; %s", worstStale, rounds)
        .isLessThanOrEqualTo(TTL.plus(PAUSE).plus(PAUSE).toMillis());
  }

  /** Three pauses, {@link #APART} apart, sampling value ages until {@link #APART} after the last. */
  private static Sample pausedThreeTimes(List<String> keys) throws InterruptedException {
    ScheduledExecutorService pauses = Executors.newSingleThreadScheduledExecutor();
    try {
      for (int i = 0; i < 3; i++) {
        pauses.schedule(() -> RedisPause.debugSleep(REDIS, PAUSE), 1_000 + i * APART.toMillis(), TimeUnit.MILLISECONDS);
      }
      long end = System.nanoTime() + Duration.ofMillis(1_000 + 3 * APART.toMillis()).toNanos();
      Sample worst = new Sample(0, 0);
      while (System.nanoTime() < end) {
        Sample now = oldest(keys);
        worst = new Sample(Math.max(worst.oldestMillis(), now.oldestMillis()), Math.max(worst.stale(), now.stale()));
        // A sampling interval, not a wait for another thread: the reads themselves are the check.
        Thread.sleep(100);
      }
      return worst;
    } finally {
      pauses.shutdownNow();
      pauses.awaitTermination(5, TimeUnit.SECONDS);
    }
  }

  private record Sample(long oldestMillis, int stale) {}

  /** The oldest value's age (now - computedAt) and how many keys are older than their TTL or gone. */
  private static Sample oldest(List<String> keys) {
    long now = System.currentTimeMillis();
    long oldest = 0;
    int stale = 0;
    for (String key : keys) {
      Map<String, String> meta = APP.meta(key);
      String computedAt = meta.get("computedAt");
      long age = computedAt == null ? Long.MAX_VALUE / 2 : now - Long.parseLong(computedAt);
      oldest = Math.max(oldest, age);
      if (age > TTL.toMillis()) {
        stale++;
      }
    }
    return new Sample(oldest, stale);
  }
}
