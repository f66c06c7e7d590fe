package io.refresher.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.refresher.RefresherApplication;
import io.refresher.config.RefresherConfiguration;
import io.refresher.testing.TestApp;
import jakarta.ws.rs.core.Response;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.redisson.api.redisnode.RedisNodes;

/**
 * Replicas whose wall clocks are 5 s ahead and 5 s behind share the work with one whose clock is
 * right: nothing is refreshed early (source runs stay at one per cycle) and no value passes its
 * logical expiry, because every replica schedules by Redis's time, not its own.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class ClockSkewIT {

  private static final Duration SKEW = Duration.ofSeconds(5);
  private static final int KEYS = 20;
  private static final Duration TTL = Duration.ofSeconds(3);

  /** The service on a machine whose clock is 5 s ahead. */
  public static final class AheadApplication extends RefresherApplication {
    @Override
    protected InstantSource localClock() {
      return Clock.offset(Clock.systemUTC(), SKEW);
    }
  }

  /** The service on a machine whose clock is 5 s behind. */
  public static final class BehindApplication extends RefresherApplication {
    @Override
    protected InstantSource localClock() {
      return Clock.offset(Clock.systemUTC(), SKEW.negated());
    }
  }

  private static final TestApp APP = TestApp.create("clock_skew", List.of());
  private static final TestApp AHEAD = TestApp.replicaOf(APP, "clock_skew_ahead", AheadApplication.class);
  private static final TestApp BEHIND = TestApp.replicaOf(APP, "clock_skew_behind", BehindApplication.class);
  static final DropwizardAppExtension<RefresherConfiguration> EXTENSION = APP.extension();
  static final DropwizardAppExtension<RefresherConfiguration> AHEAD_EXTENSION = AHEAD.extension();
  static final DropwizardAppExtension<RefresherConfiguration> BEHIND_EXTENSION = BEHIND.extension();

  @Test
  void skewedReplicas_refreshOncePerCycle_noValuePastItsExpiry_metadataInRedisTime() throws Exception {
    assertThat(AHEAD.parts().clock().offsetMillis()).as("measured offset of the replica ahead").isBetween(-5_500L, -4_500L);
    assertThat(BEHIND.parts().clock().offsetMillis()).as("measured offset of the replica behind").isBetween(4_500L, 5_500L);
    List<String> keys = new ArrayList<>();
    for (int i = 0; i < KEYS; i++) {
      keys.add("skew:" + i);
      // Registered through every replica in turn, so each writes due times with its own clock.
      TestApp through = List.of(APP, AHEAD, BEHIND).get(i % 3);
      try (Response response =
          through.putKey(
              keys.get(i), "{\"source\":\"stamped\",\"params\":{\"id\":" + i + "},\"ttl\":\"" + TTL + "\",\"policy\":\"always\"}")) {
        assertThat(response.getStatus()).isEqualTo(201);
      }
    }
    long runsBefore = APP.database().executionsOf("stamped_source");
    Watch watch = new Watch(keys);
    long watchStarted = System.nanoTime();
    try {
      watch.start();
      // All three replicas together: a few cycles (TTL 3 s) are enough to see a skewed one refresh early.
      await().pollDelay(Duration.ofSeconds(5)).atMost(Duration.ofSeconds(10)).until(() -> true);
      // The replica ahead stops (as a pod that goes away): its due times must not strand the keys
      // with the others for the 5 s its clock was ahead.
      AHEAD.parts().dispatcher().stop(Duration.ofSeconds(5));
      await().pollDelay(Duration.ofSeconds(10)).atMost(Duration.ofSeconds(15)).until(() -> true);
    } finally {
      watch.stop();
    }
    long runs = APP.database().executionsOf("stamped_source") - runsBefore;
    long watchMillis = (System.nanoTime() - watchStarted) / 1_000_000;

    // Each key is refreshed once per (TTL - TTR), TTR between 0.5 s and 1.5 s here: at most about
    // one run per 1.5 s per key, plus one per key at each handover.
    long bound = (long) Math.ceil(KEYS * (watchMillis / 1_500.0) * 1.3) + 2L * KEYS;
    System.out.printf(
        "clock skew: %d source runs in %d ms for %d keys (bound %d); worst value age %d ms (TTL %d);"
            + " metadata computedAt at most %d ms ahead of Redis; absent %d%n",
        runs, watchMillis, KEYS, bound, watch.worstAge.get(), TTL.toMillis(), watch.worstAhead.get(), watch.absent.get());
    assertThat(watch.absent.get()).as("reads that found no value").isZero();
    assertThat(watch.worstAge.get())
        .as("ms since the served value was computed (database clock) - a value older than its TTL is past its expiry")
        .isLessThan(TTL.toMillis() + 500);
    assertThat(watch.worstAhead.get()).as("ms a computedAt was ahead of Redis's time").isLessThan(500);
    assertThat(runs).as("source runs").isLessThanOrEqualTo(bound);
  }

  /** Polls every key every 100 ms: presence, the served value's age, its metadata's time. */
  private static final class Watch {
    final List<String> keys;
    final AtomicInteger absent = new AtomicInteger();
    final AtomicLong worstAge = new AtomicLong(Long.MIN_VALUE);
    final AtomicLong worstAhead = new AtomicLong(Long.MIN_VALUE);
    final ScheduledExecutorService poller = Executors.newSingleThreadScheduledExecutor();

    Watch(List<String> keys) {
      this.keys = keys;
    }

    void start() {
      poller.scheduleAtFixedRate(this::poll, 0, 100, TimeUnit.MILLISECONDS);
    }

    void poll() {
      long redisNow = redisMillis();
      for (String key : keys) {
        String value = APP.get(key);
        if (value == null) {
          absent.incrementAndGet();
          continue;
        }
        long computed = Instant.parse(value.substring(0, value.indexOf('|'))).toEpochMilli();
        worstAge.accumulateAndGet(redisNow - computed, Math::max);
        Map<String, String> meta = APP.meta(key);
        if (meta.containsKey("computedAt")) {
          worstAhead.accumulateAndGet(Long.parseLong(meta.get("computedAt")) - redisNow, Math::max);
        }
      }
    }

    void stop() throws InterruptedException {
      poller.shutdownNow();
      poller.awaitTermination(5, TimeUnit.SECONDS);
    }
  }

  private static long redisMillis() {
    var time = APP.reader().getRedisNodes(RedisNodes.SINGLE).getInstance().time();
    return time.getSeconds() * 1_000L + time.getMicroseconds() / 1_000L;
  }
}
