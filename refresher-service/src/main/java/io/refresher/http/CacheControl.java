package io.refresher.http;

import java.util.Locale;
import java.util.OptionalDouble;

/**
 * What a response's {@code Cache-Control} says about how long its value may be kept by a shared
 * cache, which Refresher is (RFC 9111, section 5.2.2): {@code s-maxage} when present, else {@code
 * max-age}; {@code no-store}, {@code no-cache} and {@code private} say "do not keep it", read as 0
 * (the source's shortest TTL). Directives it does not know are ignored, as the RFC asks.
 */
final class CacheControl {

  private CacheControl() {}

  /** Seconds the value may be kept; empty when the header says nothing about it (or is absent). */
  static OptionalDouble sharedMaxAgeSeconds(String header) {
    if (header == null || header.isBlank()) {
      return OptionalDouble.empty();
    }
    Double maxAge = null;
    Double sharedMaxAge = null;
    boolean doNotKeep = false;
    for (String directive : header.split(",")) {
      String trimmed = directive.trim();
      int equals = trimmed.indexOf('=');
      String name = (equals < 0 ? trimmed : trimmed.substring(0, equals)).trim().toLowerCase(Locale.ROOT);
      String argument = equals < 0 ? null : unquoted(trimmed.substring(equals + 1).trim());
      switch (name) {
        case "no-store", "no-cache", "private" -> doNotKeep = true;
        case "max-age" -> maxAge = seconds(argument, maxAge);
        case "s-maxage" -> sharedMaxAge = seconds(argument, sharedMaxAge);
        default -> {
          // not about how long: ignored
        }
      }
    }
    if (doNotKeep) {
      return OptionalDouble.of(0);
    }
    if (sharedMaxAge != null) {
      return OptionalDouble.of(sharedMaxAge);
    }
    return maxAge == null ? OptionalDouble.empty() : OptionalDouble.of(maxAge);
  }

  private static String unquoted(String argument) {
    return argument.length() >= 2 && argument.startsWith("\"") && argument.endsWith("\"")
        ? argument.substring(1, argument.length() - 1)
        : argument;
  }

  /** A delta-seconds argument (digits only); a malformed one leaves what was read before. */
  private static Double seconds(String argument, Double before) {
    if (argument == null || argument.isEmpty() || !argument.chars().allMatch(Character::isDigit)) {
      return before;
    }
    // at most 2^31 seconds: larger values are to be read as that (RFC 9111, section 1.2.2)
    return argument.length() > 10 ? 2147483648.0 : Math.min(Double.parseDouble(argument), 2147483648.0);
  }
}
