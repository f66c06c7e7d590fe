package io.refresher.refresh;

import java.time.Duration;
import java.time.InstantSource;

/**
 * A log line for something that comes in bursts (changes that waited for room, changes not taken),
 * with its true count: counts add up between lines; a line is written at most once per {@code
 * every}, as soon as one is due; what is left after a burst is written by the first {@link #flush}
 * once one is due (the listener flushes whenever a wait for notifications comes back empty). So
 * the lines of a burst add up to its counter's rise, however long it lasts, and a steady trickle
 * costs one line per {@code every}. (The line it replaces said "1 changes dropped" at the first
 * drop of a flood of 100,001, and nothing after.)
 *
 * <p>Thread-safe.
 */
final class BurstLog {

  /** Writes one line: how many since the last line, and how long they took together (when it applies). */
  @FunctionalInterface
  interface Line {
    void write(long count, long millis);
  }

  private final Line line;
  private final InstantSource clock;
  private final long everyMillis;
  private long count;
  private long millis;
  private long writtenAtMillis;
  private boolean written;

  BurstLog(Line line, Duration every, InstantSource clock) {
    this.line = line;
    this.clock = clock;
    this.everyMillis = every.toMillis();
  }

  /** {@code n} more happened, taking {@code took} ms together; writes the line if one is due. */
  synchronized void add(long n, long took) {
    if (n <= 0) {
      return;
    }
    count += n;
    millis += took;
    writeIfDue(clock.millis());
  }

  /** Writes what is left, if a line is due. */
  synchronized void flush() {
    if (count > 0) {
      writeIfDue(clock.millis());
    }
  }

  private void writeIfDue(long now) {
    if (written && now - writtenAtMillis < everyMillis) {
      return;
    }
    line.write(count, millis);
    count = 0;
    millis = 0;
    written = true;
    writtenAtMillis = now;
  }
}
