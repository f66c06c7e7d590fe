package io.refresher.access;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;

/** A clock that stands still until a test moves it. */
final class MutableClock implements InstantSource {

  private long millis;

  MutableClock(Instant start) {
    this.millis = start.toEpochMilli();
  }

  void advance(Duration by) {
    millis += by.toMillis();
  }

  void setMillis(long millis) {
    this.millis = millis;
  }

  @Override
  public long millis() {
    return millis;
  }

  @Override
  public Instant instant() {
    return Instant.ofEpochMilli(millis);
  }
}
