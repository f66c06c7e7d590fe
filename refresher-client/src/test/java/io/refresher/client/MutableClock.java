package io.refresher.client;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.concurrent.atomic.AtomicLong;

/** A clock that stands still until a test moves it. */
final class MutableClock implements InstantSource {

  private final AtomicLong millis;

  MutableClock(long startMillis) {
    this.millis = new AtomicLong(startMillis);
  }

  @Override
  public Instant instant() {
    return Instant.ofEpochMilli(millis.get());
  }

  @Override
  public long millis() {
    return millis.get();
  }

  void advance(Duration duration) {
    millis.addAndGet(duration.toMillis());
  }
}
