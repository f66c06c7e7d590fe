package io.refresher.refresh;

import java.time.Duration;

/**
 * A key's TTR and the inputs it came from, as {@code GET /v1/keys/{key}} shows them.
 *
 * @param ttr how long before the value's logical expiry its refresh is due
 * @param samples how many recent compute durations the key has (0: the initial TTR was used)
 * @param compute the chosen percentile of those durations (null without samples)
 * @param lag this replica's recent scheduling lag (p99)
 * @param retryRoom room for one retry after a failure: the first retry delay plus one more compute
 * @param rate the key's access rate in reads per second (NaN when unknown)
 * @param heatFactor the margin multiplier its rate earned, from 1 up to {@code 1 + heatMargin}
 * @param unclamped the TTR before the bounds
 * @param lowerBound the configured minimum, itself capped by the upper bound
 * @param upperBound the smaller of the configured maximum and {@code maxTtrFraction × ttl}
 * @param limitedBy {@code "min"}, {@code "max"}, {@code "ttl"} or null when no bound applied
 */
public record TtrDecision(
    Duration ttr,
    int samples,
    Duration compute,
    Duration lag,
    Duration retryRoom,
    double rate,
    double heatFactor,
    Duration unclamped,
    Duration lowerBound,
    Duration upperBound,
    String limitedBy) {}
