package io.refresher.client.admin;

import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Optional;

/** How long to wait before retrying a call the service answered 503, or did not answer. */
final class RetryAfter {

  private static final Duration FIRST_BACKOFF = Duration.ofMillis(250);

  private RetryAfter() {}

  /**
   * The answer's {@code Retry-After} (seconds, or an HTTP date), at most {@code longest}; without
   * one (or an unreadable one), the backoff of this attempt.
   */
  static Duration of(Optional<String> header, int attempt, Duration longest) {
    if (header.isPresent()) {
      String value = header.get().trim();
      try {
        return min(Duration.ofSeconds(Math.max(0, Long.parseLong(value))), longest);
      } catch (NumberFormatException notSeconds) {
        try {
          Duration until = Duration.between(ZonedDateTime.now(), ZonedDateTime.parse(value, DateTimeFormatter.RFC_1123_DATE_TIME));
          return min(until.isNegative() ? Duration.ZERO : until, longest);
        } catch (DateTimeParseException notADate) {
          // fall through to the backoff
        }
      }
    }
    return backoff(attempt, longest);
  }

  /** 250 ms, doubling with each attempt, at most {@code longest}. */
  static Duration backoff(int attempt, Duration longest) {
    return min(FIRST_BACKOFF.multipliedBy(1L << Math.min(attempt, 16)), longest);
  }

  private static Duration min(Duration a, Duration b) {
    return a.compareTo(b) <= 0 ? a : b;
  }
}
