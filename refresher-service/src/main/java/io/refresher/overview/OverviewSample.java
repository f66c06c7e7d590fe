package io.refresher.overview;

import java.time.Instant;
import java.util.Map;

/**
 * One point of the console's overview, on this replica: the rates are over the interval that ends
 * at {@code at}.
 *
 * @param refreshesPerSecond refreshes that succeeded (recomputed or revalidated) per second
 * @param failuresPerSecond refreshes that failed per second
 * @param failuresBySource failed refreshes in the interval, of the sources that had any
 * @param lagP99Millis the 99th percentile of how late refreshes started, over the last minute
 * @param hotKeys keys in the hot set
 * @param redisUp whether Redis answered the epoch guard's probes
 * @param postgresUp whether the service's PostgreSQL answered its probe
 */
public record OverviewSample(
    Instant at,
    double refreshesPerSecond,
    double failuresPerSecond,
    Map<String, Long> failuresBySource,
    double lagP99Millis,
    int hotKeys,
    boolean redisUp,
    boolean postgresUp) {}
