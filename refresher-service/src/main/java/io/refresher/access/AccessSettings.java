package io.refresher.access;

import java.time.Duration;

/**
 * How reads become popularity and popularity becomes the hot set.
 *
 * @param halfLife half-life of the decaying access rate: a key that stops being read loses half
 *     its rate every half-life
 * @param hotThreshold reads per second at or above which a key is hot
 * @param coldAfter how long a key stays in the hot set after its rate last passed the threshold
 * @param maxHotKeys the hot set's cap; the hottest keys win, the others are counted as left out
 * @param settle how long after a second ends its access buckets are read, for late flushes and
 *     clock skew between readers
 * @param sampleInterval how often the counters are sampled and the hot set recomputed
 * @param maxTracked most keys whose popularity is tracked (the coldest are dropped first)
 * @param snapshotSize most keys whose popularity is saved to PostgreSQL per snapshot
 */
public record AccessSettings(
    Duration halfLife,
    double hotThreshold,
    Duration coldAfter,
    int maxHotKeys,
    Duration settle,
    Duration sampleInterval,
    int maxTracked,
    int snapshotSize) {}
