package io.refresher.refresh;

import io.refresher.failure.CacheUnavailableException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The Redis write protocol: the value under the key itself, and a metadata record in the same
 * cluster slot, both written by one atomic script that enforces the fence. Every method throws
 * {@link CacheUnavailableException} when Redis cannot be reached.
 */
public interface CacheStore {

  /** Whether a write was applied, and if not, why not. */
  enum WriteStatus {
    WRITTEN,
    /** A newer value (larger fence) is stored: this one is history. */
    NEWER_STORED,
    /**
     * Refused because the key's lock token counter had fallen below the stored token (it was
     * evicted while the metadata survived); the counter was raised above it, so the next
     * acquisition's write will be accepted. Retry soon.
     */
    COUNTER_REPAIRED,
    /** The registration this write was computed for was deleted meanwhile. */
    REGISTRATION_GONE,
    /**
     * The registration this write was computed for was replaced meanwhile ({@link #supersede}):
     * the replacement's value is still to be computed.
     */
    REGISTRATION_REPLACED,
    /**
     * An extension ({@link #extend}) found no value to extend (it expired or was evicted): nothing
     * was changed and the lock is still held, so the caller computes the value instead.
     */
    VALUE_GONE
  }

  /**
   * What became of a write.
   *
   * @param status whether it was written; when not, nothing was changed (except a repaired
   *     counter)
   * @param clearedFailures the failure streak that this successful write ended (0 if none)
   * @param recentDurations the key's recent compute durations in ms, this one included, oldest
   *     first (empty when not written)
   */
  record WriteResult(WriteStatus status, int clearedFailures, List<Long> recentDurations) {
    public boolean written() {
      return status == WriteStatus.WRITTEN;
    }
  }

  /**
   * Metadata written beside a value; the client library reads it for early recomputation.
   *
   * @param validator the source's validator for this value (see {@link Loaded}); null for none
   */
  record ValueMeta(Instant computedAt, Duration computeDuration, Instant expiresAt, String validator) {
    public ValueMeta(Instant computedAt, Duration computeDuration, Instant expiresAt) {
      this(computedAt, computeDuration, expiresAt, null);
    }
  }

  /**
   * Writes value and metadata atomically, unless the stored fence is newer or the registration
   * was deleted.
   *
   * @param generation the generation of the registration the value was computed for (0 for a
   *     template's key): refused when a deletion of that generation, or a write of a newer one, is
   *     recorded
   * @param physicalTtl how long Redis keeps the value: the TTL plus the stale grace plus jitter
   * @param history how many recent compute durations the metadata keeps
   * @param lock the lock the value was computed under, released by the same write (one round
   *     trip for both) whatever the write's status; its own {@code release()} then does nothing.
   *     Null when the caller holds no lock.
   */
  WriteResult write(
      String key,
      String value,
      Fence fence,
      long generation,
      ValueMeta meta,
      Duration physicalTtl,
      int history,
      KeyLocks.HeldLock lock);

  /** One write of {@link #writeAll}: the arguments of {@link #write}. */
  record WriteRequest(
      String key,
      String value,
      Fence fence,
      long generation,
      ValueMeta meta,
      Duration physicalTtl,
      int history,
      KeyLocks.HeldLock lock) {}

  /** What became of one write of {@link #writeAll}: its result, or why Redis could not be asked. */
  record WriteAttempt(WriteResult result, CacheUnavailableException failure) {}

  /**
   * The writes of a batch refresh's keys, each exactly as {@link #write}; an implementation sends
   * them together. Never throws: a write that could not be made says so.
   *
   * @return by key
   */
  default java.util.Map<String, WriteAttempt> writeAll(List<WriteRequest> writes) {
    java.util.Map<String, WriteAttempt> attempts = new java.util.HashMap<>();
    for (WriteRequest w : writes) {
      try {
        attempts.put(
            w.key(),
            new WriteAttempt(write(w.key(), w.value(), w.fence(), w.generation(), w.meta(), w.physicalTtl(), w.history(), w.lock()), null));
      } catch (CacheUnavailableException e) {
        attempts.put(w.key(), new WriteAttempt(null, e));
      }
    }
    return attempts;
  }

  /**
   * Extends the TTL of the value now stored, without rewriting it, after its source said it still
   * holds: the same fenced script as {@link #write}, so a revalidation is refused exactly when a
   * write would be, and moves the fence like one. The metadata keeps the value's {@code
   * computedAt}, compute time and validator, and gets the new {@code expiresAt} and {@code
   * revalidatedAt}; a failure streak ends.
   *
   * @return the result; {@link WriteStatus#VALUE_GONE} when there is no value to extend (then the
   *     lock is not released)
   */
  WriteResult extend(
      String key,
      Fence fence,
      long generation,
      Instant revalidatedAt,
      Instant expiresAt,
      Duration physicalTtl,
      KeyLocks.HeldLock lock);

  /**
   * The validator stored with the value now served (see {@link Loaded}); empty when there is no
   * value or it was stored without one.
   */
  Optional<String> validator(String key);

  /**
   * Deletes the value, for a key whose data changed while nobody reads it: the next reader
   * computes it. The metadata loses what described the value (its logical expiry above all, so a
   * reader caches the key again at once) and keeps the fence, which still refuses older writes,
   * and the generation and tombstone. The caller holds the key's lock, so no refresh in flight can
   * write an older value after it.
   */
  void evictValue(String key);

  /**
   * Records a failed refresh in the metadata (the value is left alone). The record does not move
   * the fence: only a successful write does, so a successful value newer than the stored one is
   * still accepted after it.
   *
   * @param metaTtlIfNew TTL of the metadata record when it did not exist yet
   * @return the number of consecutive failures including this one, or 0 when a newer fence
   *     refused the record
   */
  int recordFailure(String key, Fence fence, String kind, String error, Instant at, Duration metaTtlIfNew);

  Optional<KeyState> state(String key);

  /**
   * The value a reader gets now, with what the metadata says about it, read together (one atomic
   * script): what the consistency audit compares with its source.
   *
   * @param computedAt when the value was computed; null when the metadata does not say
   * @param revalidatedAt when its source last said it still holds, if it did; null otherwise
   * @param validator the source's validator stored with it (a version, an ETag); null for none
   */
  record Served(String value, java.time.Instant computedAt, java.time.Instant revalidatedAt, String validator) {

    /** When the value was last known current: its revalidation when later than its computation. */
    public java.time.Instant knownCurrentAt() {
      if (revalidatedAt != null && (computedAt == null || revalidatedAt.isAfter(computedAt))) {
        return revalidatedAt;
      }
      return computedAt;
    }
  }

  /** The key's value and its metadata as readers see them now; empty when it has no value. */
  Optional<Served> served(String key);

  /**
   * For each of {@code keys} that has a value: when that value was last known current, epoch ms
   * (its {@code revalidatedAt} when later than its {@code computedAt}); keys without a value (or
   * without a computation time) are left out. One round trip for all.
   */
  default Map<String, Long> valueTimes(List<String> keys) {
    Map<String, Long> times = new java.util.HashMap<>();
    for (String key : keys) {
      state(key)
          .filter(KeyState::valuePresent)
          .ifPresent(
              state -> {
                java.time.Instant at = state.revalidatedAt() != null && (state.computedAt() == null || state.revalidatedAt().isAfter(state.computedAt()))
                    ? state.revalidatedAt()
                    : state.computedAt();
                if (at != null) {
                  times.put(key, at.toEpochMilli());
                }
              });
    }
    return times;
  }

  /**
   * Records that the registration of {@code generation} was deleted: writes computed for it (or
   * for an older one) are refused from now on. With {@code evict}, the value, its metadata and
   * its lock token counter are deleted and only the tombstone remains; without, the value stays
   * to expire on its own.
   *
   * @param tombstone how long the record of the deletion is kept; longer than any refresh can run
   */
  void retire(String key, long generation, boolean evict, Duration tombstone);

  /**
   * Records that the registration of {@code generation} replaced older ones: writes computed for
   * an older generation (a refresh of the replaced registration still running) are refused from
   * now on, as after {@link #retire}. Never lowers the stored generation.
   *
   * @param tombstone how long the record is kept at least; longer than any refresh can run
   * @throws CacheUnavailableException when Redis cannot be reached
   */
  void supersede(String key, long generation, Duration tombstone);
}
