package io.refresher.refresh;

import java.time.Duration;

/** Observes waits for the datasources' load bound (metrics). Must be fast and must not throw. */
public interface SourceLoadListener {

  /** A refresh was admitted after waiting {@code waited} (zero when the bound did not bite). */
  void onAdmitted(String datasource, Duration waited);

  /** A refresh gave up after waiting its whole budget; it is retried later. */
  void onThrottled(String datasource, Duration waited);

  SourceLoadListener NONE =
      new SourceLoadListener() {
        @Override
        public void onAdmitted(String datasource, Duration waited) {}

        @Override
        public void onThrottled(String datasource, Duration waited) {}
      };
}
