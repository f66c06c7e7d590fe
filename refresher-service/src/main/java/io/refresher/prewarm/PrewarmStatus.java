package io.refresher.prewarm;

import java.time.Instant;
import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

/**
 * Where a refill stands, as {@code GET /v1/prewarm} shows it and as the leading replica shares it
 * with the others.
 *
 * @param state {@code idle} (none has run since this Redis started), {@code running}, {@code
 *     finished}
 * @param trigger {@code data-loss} (Redis lost its data, or a first start on an empty Redis with a
 *     known history) or {@code manual} ({@code POST /v1/prewarm})
 * @param total keys the refill set out to write (those missing from Redis when it was planned)
 * @param done keys found back in Redis
 * @param failed keys whose last refresh failed and that are still missing (retried with backoff)
 * @param skipped keys that left the plan without coming back: nothing can refresh them any more
 *     ({@link #NOT_COVERED}, {@link #REGISTRATION_GONE}), or a newer refill took them over ({@link
 *     #EPOCH_OVERTAKEN}, {@link #SUPERSEDED})
 * @param skippedByReason the skipped keys by reason
 * @param left keys not back yet, failed ones included; {@code done + skipped + left = total}
 * @param hotKeys of the total, keys refilled because they are popular; the rest are {@code always}
 * @param keysPerSecond keys found back per second over the last progress interval
 * @param queriesPerSecondBound the rate bound of each datasource the refill uses (0: unbounded)
 * @param leader the replica that leads it
 */
public record PrewarmStatus(
    String state,
    String trigger,
    long epoch,
    long total,
    long done,
    long failed,
    long skipped,
    Map<String, Long> skippedByReason,
    long left,
    long hotKeys,
    double keysPerSecond,
    Map<String, Integer> queriesPerSecondBound,
    Instant startedAt,
    Instant finishedAt,
    Instant estimatedEndAt,
    Instant updatedAt,
    String leader) {

  public static final String IDLE = "idle";
  public static final String RUNNING = "running";
  public static final String FINISHED = "finished";

  /** No registration or template covers the key any more (deleted during the refill). */
  public static final String NOT_COVERED = "not-covered";
  /** Its refresh found the registration deleted (or replaced and no longer covering it) meanwhile. */
  public static final String REGISTRATION_GONE = "registration-gone";
  /** Redis lost its data again: the newer epoch's refill plans what is missing then. */
  public static final String EPOCH_OVERTAKEN = "epoch-overtaken";
  /** A newer refill of the same epoch replaced this one (a restart of the leader, another leader). */
  public static final String SUPERSEDED = "superseded";

  public PrewarmStatus {
    // A record written by an older version has no reasons: read as none.
    skippedByReason =
        skippedByReason == null ? Map.of() : Collections.unmodifiableMap(new TreeMap<>(skippedByReason));
  }

  public static PrewarmStatus idle() {
    return new PrewarmStatus(IDLE, null, 0, 0, 0, 0, 0, Map.of(), 0, 0, 0, Map.of(), null, null, null, null, null);
  }

  public boolean running() {
    return RUNNING.equals(state);
  }
}
