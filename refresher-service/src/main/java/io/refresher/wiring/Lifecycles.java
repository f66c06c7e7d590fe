package io.refresher.wiring;

import io.dropwizard.lifecycle.Managed;

/**
 * Named managed objects for Dropwizard's lifecycle, which starts them in the order they were
 * registered and stops them in reverse. The name is what {@code toString} says, so a failure to
 * start or stop one names it in the log.
 */
public final class Lifecycles {

  /** One start or stop step. */
  @FunctionalInterface
  public interface Step {
    void run() throws Exception;
  }

  private static final Step NOTHING = () -> {};

  private Lifecycles() {}

  public static Managed managed(String name, Step start, Step stop) {
    return new Named(name, start, stop);
  }

  /** Something done once at start, with nothing to undo at stop. */
  public static Managed atStart(String name, Step start) {
    return managed(name, start, NOTHING);
  }

  /** Something closed at stop (a pool, a client), made before the lifecycle started. */
  public static Managed closing(String name, Step close) {
    return managed(name, NOTHING, close);
  }

  /** A managed object whose start and stop are steps, named in the log. */
  private record Named(String name, Step onStart, Step onStop) implements Managed {

    @Override
    public void start() throws Exception {
      onStart.run();
    }

    @Override
    public void stop() throws Exception {
      onStop.run();
    }

    @Override
    public String toString() {
      return name;
    }
  }
}
