package io.refresher.bench.jmh;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps Redisson's and embedded Redis's DEBUG lines out of a benchmark's output: a forked JMH JVM
 * has no Logback configuration, so everything would be logged. Put back as it was afterwards, as
 * the tiny mode runs the benchmarks inside the bench's own JVM.
 */
final class Logs {

  private Logs() {}

  /** Sets the root level to WARN; returns the level to {@link #restore}. */
  static Level quiet() {
    Logger root = root();
    Level previous = root.getLevel();
    root.setLevel(Level.WARN);
    return previous;
  }

  static void restore(Level previous) {
    root().setLevel(previous);
  }

  private static Logger root() {
    return (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
  }
}
