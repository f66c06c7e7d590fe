package io.refresher.http;

import java.util.Optional;

/**
 * The validator an HTTP source stores with a value, and the conditional header it sends back.
 *
 * <p>A response's {@code ETag} is preferred (it says "this exact representation"); without one,
 * its {@code Last-Modified}. Stored as {@code etag:"abc"} or {@code last-modified:Wed, 21 Oct 2015
 * 07:28:00 GMT}, so that the next refresh sends {@code If-None-Match: "abc"} or {@code
 * If-Modified-Since: Wed, ...} and a {@code 304} extends the value's TTL without reading it again.
 * A stored validator of another kind (a SQL version, from before the source was changed to HTTP),
 * or one that is no header value, is ignored: the value is computed.
 */
final class HttpValidators {

  static final String ETAG = "etag:";
  static final String LAST_MODIFIED = "last-modified:";

  /** Longer header values are not kept: a validator is stored with every value. */
  static final int MAX_LENGTH = 512;

  /** A conditional request header. */
  record Conditional(String name, String value) {}

  private HttpValidators() {}

  /** The validator of a response with these headers (either may be null); empty when it has neither. */
  static Optional<String> of(String etag, String lastModified) {
    if (usable(etag)) {
      return Optional.of(ETAG + etag.trim());
    }
    if (usable(lastModified)) {
      return Optional.of(LAST_MODIFIED + lastModified.trim());
    }
    return Optional.empty();
  }

  /** The header that asks whether the value stored with {@code validator} still holds. */
  static Optional<Conditional> conditional(String validator) {
    if (validator == null) {
      return Optional.empty();
    }
    if (validator.startsWith(ETAG) && usable(validator.substring(ETAG.length()))) {
      return Optional.of(new Conditional("If-None-Match", validator.substring(ETAG.length())));
    }
    if (validator.startsWith(LAST_MODIFIED) && usable(validator.substring(LAST_MODIFIED.length()))) {
      return Optional.of(new Conditional("If-Modified-Since", validator.substring(LAST_MODIFIED.length())));
    }
    return Optional.empty();
  }

  /** Printable ASCII, not blank, not too long: safe to send back as a header value. */
  private static boolean usable(String value) {
    if (value == null || value.isBlank() || value.length() > MAX_LENGTH) {
      return false;
    }
    return value.chars().allMatch(c -> c >= 0x20 && c <= 0x7E);
  }
}
