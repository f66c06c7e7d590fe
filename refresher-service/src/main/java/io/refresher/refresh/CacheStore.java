package io.refresher.refresh;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * The Redis write protocol: the value under the key itself, and a metadata record in the same
 * cluster slot, both written by one atomic script that enforces the fence. Every method throws
 * {@link CacheUnavailableException} when Redis cannot be reached.
 */
public interface CacheStore {

  /**
   * What became of a write.
   *
   * @param written false when the stored fence was newer than the write's: nothing was changed
   * @param clearedFailures the failure streak that this successful write ended (0 if none)
   * @param recentDurations the key's recent compute durations in ms, this one included, oldest
   *     first (empty when not written)
   */
  record WriteResult(boolean written, int clearedFailures, List<Long> recentDurations) {}

  /** Metadata written beside a value; the client library reads it for early recomputation. */
  record ValueMeta(Instant computedAt, Duration computeDuration, Instant expiresAt) {}

  /**
   * Writes value and metadata atomically, unless the stored fence is newer.
   *
   * @param physicalTtl how long Redis keeps the value: the TTL plus the stale grace plus jitter
   * @param history how many recent compute durations the metadata keeps
   */
  WriteResult write(String key, String value, Fence fence, ValueMeta meta, Duration physicalTtl, int history);

  /**
   * Records a failed refresh in the metadata (the value is left alone).
   *
   * @param metaTtlIfNew TTL of the metadata record when it did not exist yet
   * @return the number of consecutive failures including this one, or 0 when a newer fence
   *     refused the record
   */
  int recordFailure(String key, Fence fence, String kind, String error, Instant at, Duration metaTtlIfNew);

  Optional<KeyState> state(String key);

  /** Deletes the value and its metadata. */
  void evict(String key);
}
