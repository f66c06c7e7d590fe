package io.refresher.bench.stampede;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

/** The TTL of each value written: exactly the TTL, or drawn from TTL ± jitter per write. */
final class TtlPolicy {

  private final long ttlMillis;
  private final double jitter;

  TtlPolicy(Duration ttl, Scenario scenario) {
    this.ttlMillis = ttl.toMillis();
    this.jitter = scenario.jitter();
  }

  /** The TTL of the next write, in milliseconds. */
  long nextMillis() {
    if (jitter == 0) {
      return ttlMillis;
    }
    return Math.round(ttlMillis * (1 - jitter + 2 * jitter * ThreadLocalRandom.current().nextDouble()));
  }

  long nominalMillis() {
    return ttlMillis;
  }

  /** The longest TTL a write can get: a value older than this (plus slack) is stale. */
  long maxMillis() {
    return Math.round(ttlMillis * (1 + jitter));
  }
}
