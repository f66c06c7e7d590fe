package io.refresher.refresh;

import java.time.Duration;

/**
 * How refreshes are planned and protected.
 *
 * @param ttr bounds and inputs of each key's adaptive TTR (how long before a value's logical
 *     expiry its refresh is due)
 * @param maxTtrFraction upper bound of the TTR as a fraction of the key's TTL, so a short TTL is
 *     still refreshed once per cycle rather than continuously
 * @param lockLease how long a refresh may hold its key's lock (and its datasource's concurrency
 *     slot); every source's worst case must fit in it (checked at start)
 * @param staleGrace how long a value outlives its logical expiry in Redis, so a failing source
 *     leaves the old value served
 * @param jitterFraction random extra physical TTL, as a fraction of the TTL, that spreads the
 *     expiry of keys that stop being refreshed together
 * @param retryBase first retry delay after a failure; doubles per consecutive failure
 * @param retryMax longest retry delay
 * @param maxValueBytes largest value written; a larger one is refused and reported on the key
 * @param backlogSpread after a refresh that started late (a backlog), the next one is moved earlier
 *     by a random part of up to this fraction of the period, so that keys a backlog bunched
 *     together come back spread out instead of as a backlog again; 0 turns it off
 */
public record RefreshSettings(
    TtrSettings ttr,
    double maxTtrFraction,
    Duration lockLease,
    Duration staleGrace,
    double jitterFraction,
    Duration retryBase,
    Duration retryMax,
    long maxValueBytes,
    double backlogSpread) {

  /** The default {@link #backlogSpread}: 5 % of the period. */
  public static final double DEFAULT_BACKLOG_SPREAD = 0.05;

  /** Settings with the default backlog spread. */
  public RefreshSettings(
      TtrSettings ttr,
      double maxTtrFraction,
      Duration lockLease,
      Duration staleGrace,
      double jitterFraction,
      Duration retryBase,
      Duration retryMax,
      long maxValueBytes) {
    this(ttr, maxTtrFraction, lockLease, staleGrace, jitterFraction, retryBase, retryMax, maxValueBytes, DEFAULT_BACKLOG_SPREAD);
  }
}
