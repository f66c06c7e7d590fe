package io.refresher.refresh;

import java.time.Duration;

/**
 * Runs tasks on other threads, now or after a delay: the change path's only contact with threads,
 * so that its tests drive time by hand.
 */
@FunctionalInterface
public interface DelayedTasks {

  /**
   * Runs {@code task} after {@code delay} (zero: as soon as a thread is free). A task submitted
   * after shutdown is dropped silently.
   */
  void run(Runnable task, Duration delay);
}
