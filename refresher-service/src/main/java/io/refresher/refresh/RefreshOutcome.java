package io.refresher.refresh;

import java.time.Duration;
import java.time.Instant;

/** What a refresh did. */
public sealed interface RefreshOutcome {

  /** A short name for logs, metrics and the API. */
  String name();

  /** A new value was computed and written. */
  record Refreshed(
      Instant computedAt,
      Duration computeDuration,
      Instant expiresAt,
      Instant nextRefreshAt,
      Duration ttr,
      Fence fence)
      implements RefreshOutcome {
    @Override
    public String name() {
      return "refreshed";
    }
  }

  /**
   * The source said the stored value still holds (an HTTP {@code 304}, an unchanged version): its
   * TTL was extended by the fenced write, without recomputing or rewriting it.
   */
  record Revalidated(
      Instant revalidatedAt,
      Duration checkDuration,
      Instant expiresAt,
      Instant nextRefreshAt,
      Duration ttr,
      Fence fence)
      implements RefreshOutcome {
    @Override
    public String name() {
      return "revalidated";
    }
  }

  /**
   * Nothing was written, by design: someone else is refreshing, or already wrote a newer value.
   *
   * @param lockedUntil for {@link Reason#LOCKED}, when the holder's lock lease ends at the latest
   *     (null when unknown, and for the other reasons)
   */
  record Skipped(Reason reason, Instant lockedUntil) implements RefreshOutcome {
    public Skipped(Reason reason) {
      this(reason, null);
    }

    public enum Reason {
      /** Another refresh of the key holds its lock (on this or another replica). */
      LOCKED,
      /** A newer value was written while this one was computed; the older one was dropped. */
      FENCED_OUT,
      /**
       * The key's lock token counter had been lost (evicted) and restarted below the stored token;
       * it was raised, and the key is retried shortly.
       */
      COUNTER_REPAIRED,
      /** The registration was deleted (or replaced) while this value was computed; it was dropped. */
      REGISTRATION_GONE,
      /**
       * The datasource's load bound left no room within the wait budget; the key stays due and is
       * retried shortly.
       */
      THROTTLED
    }

    @Override
    public String name() {
      return "skipped";
    }
  }

  /** The source or Redis failed; the old value stays served and a retry is planned. */
  record Failed(String kind, String error, Duration computeDuration, int consecutiveFailures, Instant retryAt)
      implements RefreshOutcome {
    @Override
    public String name() {
      return "failed";
    }
  }
}
