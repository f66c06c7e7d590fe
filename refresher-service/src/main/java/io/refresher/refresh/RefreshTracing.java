package io.refresher.refresh;

import io.refresher.registry.Registration;

/**
 * Where the refresh path reports its steps as trace spans: the refresh, and inside it the source's
 * run and the Redis write (an OpenTelemetry adapter, or nothing). A step is current on its thread
 * until closed, so what runs inside it (an HTTP source's request) belongs to it, and a refresh
 * started by an admin request belongs to that request's trace.
 */
public interface RefreshTracing {

  /** A refresh of the registration, for the trigger. */
  Step refresh(Registration registration, Trigger trigger);

  /** The source's run (or revalidation) inside the current refresh. */
  Step source(Registration registration);

  /** The write of the value (or the extension of its TTL) to Redis inside the current refresh. */
  Step write(Registration registration);

  /** One span: closed once, in a {@code try}. */
  interface Step extends AutoCloseable {

    /** How the step ended: a refresh's outcome ({@code refreshed}, {@code failed}...). */
    void outcome(String outcome);

    /** The step failed: its kind ({@code TIMEOUT}, {@code REDIS}...) and message. */
    void failed(String kind, String message);

    @Override
    void close();
  }

  /** Tracing off: steps that record nothing. */
  RefreshTracing NONE =
      new RefreshTracing() {
        private final Step nothing =
            new Step() {
              @Override
              public void outcome(String outcome) {}

              @Override
              public void failed(String kind, String message) {}

              @Override
              public void close() {}
            };

        @Override
        public Step refresh(Registration registration, Trigger trigger) {
          return nothing;
        }

        @Override
        public Step source(Registration registration) {
          return nothing;
        }

        @Override
        public Step write(Registration registration) {
          return nothing;
        }
      };
}
