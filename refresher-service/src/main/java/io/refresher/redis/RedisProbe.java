package io.refresher.redis;

import java.time.Duration;

/**
 * How the epoch guard decides that Redis is away: a check (one read of the markers) that gets no
 * answer within {@code timeout} is a miss, and Redis counts as unreachable after {@code misses}
 * misses in a row (checked {@value RedisEpochGuard#UNREACHABLE_CHECK_MILLIS} ms apart once one
 * was missed). One miss is not enough: a client whose own threads are busy (a saturated Netty
 * thread, a JVM starved of CPU) misses a check while Redis answers everyone else, and the service
 * would then refuse its own work as if Redis were down.
 *
 * @param timeout how long one check waits for Redis
 * @param misses checks in a row without an answer before the adapters fail fast; at least 1
 */
public record RedisProbe(Duration timeout, int misses) {

  public RedisProbe {
    if (timeout.isNegative() || timeout.isZero()) {
      throw new IllegalArgumentException("probe timeout must be positive, was " + timeout);
    }
    if (misses < 1) {
      throw new IllegalArgumentException("probe misses must be at least 1, was " + misses);
    }
  }
}
