package io.refresher.source;

import java.time.Duration;

/**
 * A source could not produce a value. The refresh keeps the old value and retries with backoff;
 * {@link Kind} tells operators (and metrics) what kind of failure it was.
 *
 * <p>Two texts, for two audiences. The {@linkplain #getMessage() message} is recorded on the key
 * (its metadata in Redis, which any Redis client reads, and {@code GET /v1/keys/{key}}, which the
 * {@code read} role may call): it is made by the service from what it knows (the source, the
 * request, the kind of failure, an SQLSTATE, an HTTP status and reason), never from what the
 * database or the endpoint quoted. That text, which can hold row data (PostgreSQL's Detail and
 * Where lines, an error body), is the {@linkplain #detail() detail}, which only the service's log
 * shows.
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

  /** The longest detail logged: a source's own text is bounded too (a {@code RAISE} can say anything). */
  static final int MAX_DETAIL_CHARS = 2000;

  private final Kind kind;
  private final transient Duration retryAfter;
  private final String detail;

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
    this(kind, message, null, cause, retryAfter);
  }

  /**
   * @param detail what the source itself said (a server's full error, the start of an error body),
   *     for the service's log only; null when there is nothing beyond the message
   */
  public SourceException(Kind kind, String message, String detail, Throwable cause, Duration retryAfter) {
    super(message, cause);
    this.kind = kind;
    this.retryAfter = retryAfter;
    this.detail = oneLine(detail);
  }

  /** The same failure under another message (its detail, cause and Retry-After kept). */
  public SourceException withMessage(String message) {
    return new SourceException(kind, message, detail, getCause(), retryAfter);
  }

  public Kind kind() {
    return kind;
  }

  /** The earliest the source asked to be tried again; null when it did not say. */
  public Duration retryAfter() {
    return retryAfter;
  }

  /**
   * What the source itself said, on one line and bounded, for the service's log only (never
   * recorded on the key); null when there is nothing beyond the message.
   */
  public String detail() {
    return detail;
  }

  /** One line: a source's text must not start log lines of its own. */
  private static String oneLine(String text) {
    if (text == null || text.isBlank()) {
      return null;
    }
    String line = text.strip().replaceAll("\\s*\\R\\s*", " | ");
    return line.length() <= MAX_DETAIL_CHARS ? line : line.substring(0, MAX_DETAIL_CHARS) + "...";
  }
}
