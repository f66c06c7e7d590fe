package io.refresher.refresh;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class RefreshPlannerTest {

  private static final RefreshSettings SETTINGS =
      new RefreshSettings(
          TtrSettings.fixed(Duration.ofSeconds(5)),
          0.5,
          Duration.ofSeconds(30),
          Duration.ofMinutes(5),
          0.1,
          Duration.ofMillis(500),
          Duration.ofMinutes(1),
          1024 * 1024);

  private final RefreshPlanner planner = new RefreshPlanner(SETTINGS, new Random(42));

  @Test
  void nextRefreshAt_anyTtl_isExpiryMinusTtr() {
    Instant expiresAt = Instant.parse("2025-03-01T12:00:00Z");

    AdaptiveTtr ttrs = new AdaptiveTtr(SETTINGS.ttr(), SETTINGS.maxTtrFraction(), SETTINGS.retryBase());

    assertThat(planner.nextRefreshAt(expiresAt, ttrs.decide(Duration.ofMinutes(5), List.of(), Duration.ZERO, Double.NaN, 1)))
        .isEqualTo(Instant.parse("2025-03-01T11:59:55Z"));
    assertThat(planner.nextRefreshAt(expiresAt, ttrs.decide(Duration.ofSeconds(2), List.of(), Duration.ZERO, Double.NaN, 1)))
        .isEqualTo(Instant.parse("2025-03-01T11:59:59Z"));
  }

  @Test
  void physicalTtl_manyDraws_stayWithinTtlPlusGraceAndJitter() {
    Duration ttl = Duration.ofMinutes(10);
    Duration min = ttl.plus(SETTINGS.staleGrace());
    Duration max = min.plus(Duration.ofMinutes(1)); // jitter 0.1 * 10 min
    Set<Duration> seen = new HashSet<>();

    for (int i = 0; i < 10_000; i++) {
      Duration physical = planner.physicalTtl(ttl);
      assertThat(physical).isBetween(min, max);
      seen.add(physical);
    }
    // the jitter really spreads expiries rather than adding a constant
    assertThat(seen).hasSizeGreaterThan(1000);
  }

  @Test
  void physicalTtl_zeroJitter_isExactlyTtlPlusGrace() {
    RefreshPlanner noJitter = new RefreshPlanner(withJitter(0.0), new Random(7));

    assertThat(noJitter.physicalTtl(Duration.ofMinutes(10))).isEqualTo(Duration.ofMinutes(15));
  }

  @Test
  void physicalTtl_ttlTooShortForAnyJitter_isExactlyTtlPlusGrace() {
    // 0.1 * 5 ms truncates to 0 ms of jitter
    assertThat(planner.physicalTtl(Duration.ofMillis(5)))
        .isEqualTo(Duration.ofMillis(5).plus(SETTINGS.staleGrace()));
  }

  @Test
  void retryDelay_firstFailure_isWithinUpperHalfOfBase() {
    for (int i = 0; i < 1000; i++) {
      assertThat(planner.retryDelay(1)).isBetween(Duration.ofMillis(250), Duration.ofMillis(500));
    }
  }

  @Test
  void retryDelay_consecutiveFailures_growExponentiallyWithinEqualJitterBounds() {
    RefreshPlanner planner = new RefreshPlanner(SETTINGS, new SplittableRandom(3));
    for (int failures = 1; failures <= 7; failures++) {
      long ceiling = 500L << (failures - 1); // 500, 1000, ..., 32000 ms, all below retryMax
      for (int i = 0; i < 200; i++) {
        assertThat(planner.retryDelay(failures).toMillis())
            .as("failure %d", failures)
            .isBetween(ceiling / 2, ceiling);
      }
    }
  }

  @Test
  void retryDelay_moreFailures_neverShorterThanFewerFailures() {
    // equal jitter keeps every delay of failure n+1 at or above every delay of failure n
    long previousMax = 0;
    for (int failures = 1; failures <= 7; failures++) {
      long min = Long.MAX_VALUE;
      long max = 0;
      for (int i = 0; i < 200; i++) {
        long delay = planner.retryDelay(failures).toMillis();
        min = Math.min(min, delay);
        max = Math.max(max, delay);
      }
      assertThat(min).as("failure %d", failures).isGreaterThanOrEqualTo(previousMax);
      previousMax = max;
    }
  }

  @Test
  void retryDelay_beyondRetryMax_isCappedWithinUpperHalfOfRetryMax() {
    // 500 ms * 2^7 = 64 s > 60 s
    for (int i = 0; i < 1000; i++) {
      assertThat(planner.retryDelay(8)).isBetween(Duration.ofSeconds(30), Duration.ofMinutes(1));
    }
  }

  @Test
  void retryDelay_hugeFailureCounts_doNotOverflow() {
    for (int failures : new int[] {31, 32, 33, 62, 63, 64, 65, 1000, Integer.MAX_VALUE}) {
      for (int i = 0; i < 100; i++) {
        assertThat(planner.retryDelay(failures))
            .as("failure %d", failures)
            .isBetween(Duration.ofSeconds(30), Duration.ofMinutes(1));
      }
    }
  }

  @Test
  void retryDelay_hugeFailureCountsWithLongBase_doNotOverflow() {
    RefreshSettings slow =
        new RefreshSettings(
            SETTINGS.ttr(), 0.5, SETTINGS.lockLease(), SETTINGS.staleGrace(), 0.1,
            Duration.ofDays(1), Duration.ofDays(30), SETTINGS.maxValueBytes());
    RefreshPlanner planner = new RefreshPlanner(slow, new Random(5));

    for (int failures : new int[] {6, 31, 64, Integer.MAX_VALUE}) {
      assertThat(planner.retryDelay(failures))
          .as("failure %d", failures)
          .isBetween(Duration.ofDays(15), Duration.ofDays(30));
    }
  }

  @Test
  void retryDelay_zeroOrNegativeFailures_treatedAsFirst() {
    assertThat(planner.retryDelay(0)).isBetween(Duration.ofMillis(250), Duration.ofMillis(500));
    assertThat(planner.retryDelay(-3)).isBetween(Duration.ofMillis(250), Duration.ofMillis(500));
  }

  @Test
  void retryDelay_sameSeed_isReproducible() {
    RefreshPlanner a = new RefreshPlanner(SETTINGS, new Random(99));
    RefreshPlanner b = new RefreshPlanner(SETTINGS, new Random(99));

    for (int failures = 1; failures < 10; failures++) {
      assertThat(a.retryDelay(failures)).isEqualTo(b.retryDelay(failures));
    }
  }

  @Test
  void threadLocalRandom_bound_staysWithinBound() {
    var random = RefreshPlanner.threadLocalRandom();
    for (int i = 0; i < 1000; i++) {
      assertThat(random.nextLong(10)).isBetween(0L, 9L);
    }
  }

  private static RefreshSettings withJitter(double jitter) {
    return new RefreshSettings(
        SETTINGS.ttr(), SETTINGS.maxTtrFraction(), SETTINGS.lockLease(), SETTINGS.staleGrace(), jitter,
        SETTINGS.retryBase(), SETTINGS.retryMax(), SETTINGS.maxValueBytes());
  }
}
