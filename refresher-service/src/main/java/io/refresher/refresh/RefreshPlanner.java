package io.refresher.refresh;

import java.util.concurrent.ThreadLocalRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.random.RandomGenerator;

/**
 * Decides when a key is refreshed next and how long Redis keeps its value.
 *
 * <p>A value computed at {@code t} with TTL {@code ttl} logically expires at {@code t + ttl}; its
 * refresh is due at {@code expiresAt - TTR}, with the TTR from {@link AdaptiveTtr}. After a failure the retry waits {@code retryBase * 2^(n-1)} (capped at
 * {@code retryMax}) with "equal jitter": a random point in the upper half of that delay, so that
 * many keys failing together do not retry together.
 */
public final class RefreshPlanner {

  private final RefreshSettings settings;
  private final RandomGenerator random;

  public RefreshPlanner(RefreshSettings settings, RandomGenerator random) {
    this.settings = settings;
    this.random = random;
  }

  public Instant nextRefreshAt(Instant expiresAt, TtrDecision ttr) {
    return expiresAt.minus(ttr.ttr());
  }

  /** TTL plus stale grace plus jitter: how long Redis keeps the value. */
  public Duration physicalTtl(Duration ttl) {
    long jitterBound = (long) (ttl.toMillis() * settings.jitterFraction());
    long jitter = jitterBound > 0 ? random.nextLong(jitterBound + 1) : 0;
    return ttl.plus(settings.staleGrace()).plusMillis(jitter);
  }

  /** Delay before retry number {@code consecutiveFailures} (1 for the first failure). */
  public Duration retryDelay(int consecutiveFailures) {
    int exponent = Math.max(0, Math.min(consecutiveFailures - 1, 62));
    long base = settings.retryBase().toMillis();
    long max = settings.retryMax().toMillis();
    // Doubling stops at the cap, so no shift can overflow whatever the configured base.
    long ceiling = base;
    for (int i = 0; i < exponent && ceiling < max; i++) {
      ceiling *= 2;
    }
    ceiling = Math.min(ceiling, max);
    long half = ceiling / 2;
    return Duration.ofMillis(half + random.nextLong(ceiling - half + 1));
  }

  /** A random source safe to share between threads: each thread draws from its own generator. */
  public static RandomGenerator threadLocalRandom() {
    return new RandomGenerator() {
      @Override
      public long nextLong() {
        return ThreadLocalRandom.current().nextLong();
      }

      @Override
      public long nextLong(long bound) {
        return ThreadLocalRandom.current().nextLong(bound);
      }
    };
  }
}
