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

  /** The shared progress record, so that every replica can answer {@code GET /v1/prewarm}. */
  public interface PrewarmRecords {

    /**
     * Starts a refill: saves the record unless another refill is running with a heartbeat newer
     * than {@code staleAfterMillis}. Returns false when one is.
     */
    boolean tryStart(PrewarmStatus status, long staleAfterMillis);

    void save(PrewarmStatus status);

    Optional<PrewarmStatus> load();
  }
}
