package io.refresher.api;

import io.refresher.registry.InvalidRegistrationException;
import jakarta.ws.rs.core.UriInfo;

/** Checks on request parts that every resource reads the same way. */
final class RequestChecks {

  private RequestChecks() {}

  /**
   * The {@code limit} query parameter as a number; one that is not a whole number is refused with
   * the range it must be in (the range itself is checked where the page is read).
   */
  static int limit(String text, int max) {
    try {
      return Integer.parseInt(text);
    } catch (NumberFormatException e) {
      throw new InvalidRegistrationException("limit", "must be a whole number between 1 and " + max);
    }
  }

  /**
   * A raw {@code ;} starts a URI path parameter, which the server strips before the path is read
   * ({@code /v1/keys/a;b} would address {@code a}). Refuse it, naming {@code field}, rather than act
   * on something else than the caller meant.
   */
  static void noPathParameters(UriInfo uri, String field, String rule) {
    if (uri.getRequestUri().getRawPath().indexOf(';') >= 0) {
      throw new InvalidRegistrationException(field, rule);
    }
  }
}
