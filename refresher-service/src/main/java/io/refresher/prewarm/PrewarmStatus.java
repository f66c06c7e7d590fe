package io.refresher.prewarm;

import java.time.Instant;
import java.util.Map;

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
 * @param left keys not back yet, failed ones included
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

  public static PrewarmStatus idle() {
    return new PrewarmStatus(IDLE, null, 0, 0, 0, 0, 0, 0, 0, Map.of(), null, null, null, null, null);
  }

  public boolean running() {
    return RUNNING.equals(state);
  }
}
