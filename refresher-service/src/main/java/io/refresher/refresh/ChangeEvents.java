package io.refresher.refresh;

/**
 * What the change path did, for metrics: one call per event. Implementations are cheap and never
 * throw; some calls come with the coalescer's lock held.
 */
public interface ChangeEvents {

  /** A notification arrived. */
  default void received() {}

  /** A change was folded into a refresh (or eviction) already running or planned for its key. */
  default void coalesced() {}

  /** A change refreshed its key through the refresh path (whatever the outcome, bar a lock held elsewhere). */
  default void refreshed() {}

  /** A change evicted the value of a key nobody keeps fresh. */
  default void evicted() {}

  /** A notification, or one of its keys, led to nothing: unusable payload, or no registration covers the key. */
  default void ignored() {}

  /** {@code count} keys named by notifications are covered by no registration or template. */
  default void ignored(long count) {
    for (long i = 0; i < count; i++) {
      ignored();
    }
  }

  /** A change had to wait for room in the full pending set (reading notifications paused meanwhile). */
  default void deferred() {}

  /** A change was not taken: the change path was stopping. */
  default void dropped() {}

  /** A key was locked by another refresh; it is tried again when the lock ends. */
  default void retried() {}

  /** A change could not be applied (the registry or Redis could not be reached, or the lock never came free). */
  default void failed() {}

  ChangeEvents NONE = new ChangeEvents() {};
}
