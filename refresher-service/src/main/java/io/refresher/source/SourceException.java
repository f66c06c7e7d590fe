package io.refresher.source;

import java.time.Duration;

/**
 * A source could not produce a value. The refresh keeps the old value and retries with backoff;
 * {@link Kind} tells operators (and metrics) what kind of failure it was.
 */
public class SourceException extends Exception {

  private static final long serialVersionUID = 1L;

  /** What went wrong, as shown in a key's status. */
  public enum Kind {
    /** The query or request ran past the source's timeout and was cancelled. */
    TIMEOUT,
    /**
     * The query returned no row (or NULL) where the result shape needs one, or an HTTP source's
     * JSON Pointer matched nothing in the response.
     */
    NO_VALUE,
    /** The value is larger than the configured maximum and was not written. */
    VALUE_TOO_LARGE,
    /** An HTTP source answered with a status its source does not accept. */
    HTTP_STATUS,
    /** The database or endpoint could not be reached, refused the query, or answered nonsense. */
    ERROR
  }

  private final Kind kind;
  private final transient Duration retryAfter;

  public SourceException(Kind kind, String message, Throwable cause) {
    this(kind, message, cause, null);
  }

  public SourceException(Kind kind, String message) {
    this(kind, message, null, null);
  }

  /**
   * @param retryAfter the earliest the source asked to be tried again (an HTTP {@code Retry-After}
   *     on a {@code 429} or {@code 503}); null when it did not say
   */
  public SourceException(Kind kind, String message, Throwable cause, Duration retryAfter) {
    super(message, cause);
    this.kind = kind;
    this.retryAfter = retryAfter;
  }

  public Kind kind() {
    return kind;
  }

  /** The earliest the source asked to be tried again; null when it did not say. */
  public Duration retryAfter() {
    return retryAfter;
  }
}
