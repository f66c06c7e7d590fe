package io.refresher.prewarm;

import java.util.Collection;
import java.util.Map;
import java.util.Optional;

/** What a refill needs of Redis; every method throws {@code CacheUnavailableException} when it cannot be reached. */
public final class PrewarmPorts {

  private PrewarmPorts() {}

  /** Whether values are in Redis. */
  public interface ValuePresence {

    enum Presence {
      PRESENT,
      ABSENT,
      /** Absent, and its metadata records a failed refresh. */
      FAILED
    }

    /** The presence of each key, in one round trip per page. */
    Map<String, Presence> presence(Collection<String> keys);

    /** The logical expiry (epoch ms) recorded in each key's metadata, for the keys that have one. */
    Map<String, Long> logicalExpiry(Collection<String> keys);
  }

  /** The due index, as a refill writes it. */
  public interface RefillSchedule {

    /**
     * Adds each key at its due time, or moves it there if it is due later; a key due earlier
     * keeps its time. Returns how many entries changed.
     */
    int scheduleEarliest(Map<String, Double> dueAtMillis);

    /** Adds each key at its due time if it is not in the index; entries that exist stay as they are. */
    int scheduleIfMissing(Map<String, Double> dueAtMillis);
  }

  /**
   * The shared progress record, so that every replica can answer {@code GET /v1/prewarm}. Fenced
   * by epoch, leader and start: an older epoch's record never refuses a newer epoch's refill, and
   * a leader that is no longer current never rewrites the record of the one that is.
   */
  public interface PrewarmRecords {

    /**
     * Starts a refill: saves the record unless the stored one is of a newer epoch, or of the same
     * epoch and running under another leader with a heartbeat newer than {@code staleAfterMillis}.
     * Returns false when it is not saved.
     */
    boolean tryStart(PrewarmStatus status, long staleAfterMillis);

    /**
     * Saves the progress of the refill that {@link #tryStart} started: only while the stored
     * record is that refill's own (same leader and start, epoch not newer). Returns false, writing
     * nothing, when it is not (a newer refill took over, or Redis lost the record with its data).
     */
    boolean save(PrewarmStatus status);

    Optional<PrewarmStatus> load();
  }
}
