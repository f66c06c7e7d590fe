package io.refresher.http;

import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.time.temporal.ChronoField;
import java.util.List;
import java.util.Locale;

/**
 * A {@code Retry-After} header (RFC 9110, 10.2.3): delay-seconds ({@code 120}) or an HTTP-date
 * ({@code Wed, 21 Oct 2015 07:28:00 GMT}, and the two obsolete forms a recipient must still read).
 * The refresh path takes it as the earliest retry, capped there, so that a wrong header cannot park
 * a key for days.
 */
final class RetryAfter {

  /** More seconds than this read as this many: the refresh path caps far below anyway, and no overflow. */
  private static final long MAX_SECONDS = 366L * 24 * 3600;

  /**
   * IMF-fixdate ({@code Sun, 06 Nov 1994 08:49:37 GMT}), RFC 850 ({@code Sunday, 06-Nov-94 08:49:37
   * GMT}, a two-digit year read as 1970 to 2069) and asctime ({@code Sun Nov  6 08:49:37 1994}, in
   * GMT). HTTP Client's own parser reads no asctime date (it has no zone), so these are written here.
   */
  private static final List<DateTimeFormatter> DATES =
      List.of(
          DateTimeFormatter.RFC_1123_DATE_TIME,
          new DateTimeFormatterBuilder()
              .parseCaseInsensitive()
              .appendPattern("EEEE, dd-MMM-")
              .appendValueReduced(ChronoField.YEAR, 2, 2, 1970)
              .appendPattern(" HH:mm:ss 'GMT'")
              .toFormatter(Locale.ENGLISH)
              .withZone(ZoneOffset.UTC),
          new DateTimeFormatterBuilder()
              .parseCaseInsensitive()
              .appendPattern("EEE MMM ppd HH:mm:ss yyyy")
              .toFormatter(Locale.ENGLISH)
              .withZone(ZoneOffset.UTC));

  private RetryAfter() {}

  /**
   * An HTTP-date is read against the response's own {@code Date} when it has a valid one: both are
   * the server's clock, so a server whose clock is off (an hour ahead, say) still gets the delay it
   * meant, not that delay plus its skew. Without a {@code Date}, against the time the response came.
   *
   * @param dateHeader the response's {@code Date} header, or null
   * @param received when the response came
   * @return the delay asked for (zero for a date already past), or null when the header is absent
   *     or is neither form
   */
  static Duration parse(String header, String dateHeader, Instant received) {
    Instant serverNow = dateHeader == null ? null : date(dateHeader.trim());
    return parse(header, serverNow == null ? received : serverNow);
  }

  /**
   * @param now the instant a date is relative to
   * @return the delay asked for (zero for a date already past), or null when the header is absent
   *     or is neither form
   */
  static Duration parse(String header, Instant now) {
    if (header == null) {
      return null;
    }
    String text = header.trim();
    if (text.isEmpty()) {
      return null;
    }
    if (text.chars().allMatch(c -> c >= '0' && c <= '9')) {
      if (text.length() > 12) {
        return Duration.ofSeconds(MAX_SECONDS);
      }
      return Duration.ofSeconds(Math.min(Long.parseLong(text), MAX_SECONDS));
    }
    Instant date = date(text);
    if (date == null) {
      return null;
    }
    Duration delay = Duration.between(now, date);
    if (delay.isNegative()) {
      return Duration.ZERO;
    }
    return delay.compareTo(Duration.ofSeconds(MAX_SECONDS)) > 0 ? Duration.ofSeconds(MAX_SECONDS) : delay;
  }

  private static Instant date(String text) {
    for (DateTimeFormatter format : DATES) {
      try {
        return Instant.from(format.parse(text));
      } catch (DateTimeException e) {
        // the next form
      }
    }
    return null;
  }
}
