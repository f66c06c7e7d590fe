package io.refresher.source;

import java.time.Duration;
import java.util.Objects;

/**
 * A source's values carry their own TTL: a SQL source's {@code column} (seconds, in the row beside
 * the value), or an HTTP response's {@code Cache-Control} ({@code s-maxage}, else {@code max-age}).
 * The TTL a value gets is that one, within {@code [min, max]}; a value that says nothing (no such
 * column value, no such directive) gets its registration's TTL. See {@code docs/sources.md} ("TTL
 * from the value").
 *
 * @param column the SQL column holding the TTL in seconds; null for an HTTP source
 * @param cacheControl whether an HTTP response's {@code Cache-Control} sets the TTL
 */
public record ValueTtl(String column, boolean cacheControl, Duration min, Duration max) {

  public ValueTtl {
    Objects.requireNonNull(min, "min");
    Objects.requireNonNull(max, "max");
    if (min.compareTo(max) > 0) {
      throw new IllegalArgumentException("min must not be above max");
    }
  }

  /** The TTL a value that asks for {@code asked} gets: within {@code [min, max]}. */
  public Duration bounded(Duration asked) {
    if (asked.compareTo(min) < 0) {
      return min;
    }
    return asked.compareTo(max) > 0 ? max : asked;
  }

  /** {@code seconds} (a number of seconds, possibly fractional) as a bounded TTL; null when not a finite number. */
  public Duration ofSeconds(double seconds) {
    if (Double.isNaN(seconds) || Double.isInfinite(seconds)) {
      return null;
    }
    if (seconds <= 0) {
      return min;
    }
    double millis = Math.min(seconds * 1000.0, (double) Long.MAX_VALUE / 2);
    return bounded(Duration.ofMillis((long) millis));
  }
}
