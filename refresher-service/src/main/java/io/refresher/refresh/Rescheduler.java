package io.refresher.refresh;

import java.time.Instant;

/** Accepts the next due time of a key after a refresh. Implementations may batch. */
public interface Rescheduler {
  void reschedule(String key, Instant at);
}
