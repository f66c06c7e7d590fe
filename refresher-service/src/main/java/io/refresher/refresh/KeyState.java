package io.refresher.refresh;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * What Redis holds about a key: its metadata record and the value's remaining physical TTL. Fields
 * are null when unknown (never computed, or the metadata expired).
 *
 * @param valueTtl remaining physical TTL of the value, or null when the value is absent
 * @param recentDurations recent compute durations in ms, oldest first (empty when unknown)
 * @param revalidatedAt when the source last said the value still holds, if after its computation;
 *     null otherwise
 */
public record KeyState(
    boolean valuePresent,
    Duration valueTtl,
    Instant computedAt,
    Duration computeDuration,
    Instant expiresAt,
    Fence fence,
    Long valueBytes,
    String lastError,
    String lastErrorKind,
    Instant lastErrorAt,
    int consecutiveFailures,
    List<Long> recentDurations,
    Instant revalidatedAt) {}
