package io.refresher.wiring;

import java.time.Duration;
import java.time.InstantSource;
import org.slf4j.Logger;

/**
 * The log of a periodic background task that may fail for a while (Redis or PostgreSQL away, a
 * table that cannot be read): the first failure of a streak at WARN with its cause, then, while it
 * keeps failing, one WARN per {@code repeatEvery} with the count, and the recovery at INFO. An
 * operator sees that the task stopped working and why, without a line every second.
 *
 * <p>Thread-safe; the task calls {@link #failed} or {@link #succeeded} after every run.
 */
final class FailureStreakLog {

  /** How often a task that keeps failing is logged again, unless its wiring says otherwise. */
  static final Duration REPEAT = Duration.ofMinutes(1);

  private final Logger log;
  private final String task;
  private final long repeatEveryMillis;
  private final InstantSource clock;
  private long failures;
  private long lastWarnedMillis;

  /**
   * @param task what failed, as the start of a sentence ("template reload")
   */
  FailureStreakLog(Logger log, String task, Duration repeatEvery, InstantSource clock) {
    this.log = log;
    this.task = task;
    this.repeatEveryMillis = repeatEvery.toMillis();
    this.clock = clock;
  }

  /**
   * The task, logged here after every run; a run that fails leaves whatever the task keeps (the
   * previous hot set view, the previous templates) in use.
   */
  Runnable around(Runnable task) {
    return () -> {
      try {
        task.run();
        succeeded();
      } catch (RuntimeException e) {
        failed(e);
      }
    };
  }

  synchronized void failed(RuntimeException e) {
    failures++;
    long now = clock.millis();
    if (failures == 1) {
      lastWarnedMillis = now;
      log.warn("{} failed: {}; retrying periodically", task, describe(e), e);
    } else if (now - lastWarnedMillis >= repeatEveryMillis) {
      lastWarnedMillis = now;
      log.warn("{} still failing ({} failures in a row): {}", task, failures, describe(e));
    }
  }

  synchronized void succeeded() {
    if (failures > 0) {
      log.info("{} works again after {} failures", task, failures);
      failures = 0;
    }
  }

  private static String describe(RuntimeException e) {
    return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
  }
}
