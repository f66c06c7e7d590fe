package io.refresher.source;

/**
 * A source could not produce a value. The refresh keeps the old value and retries with backoff;
 * {@link Kind} tells operators (and metrics) what kind of failure it was.
 */
public class SourceException extends Exception {

  private static final long serialVersionUID = 1L;

  /** What went wrong, as shown in a key's status. */
  public enum Kind {
    /** The query ran past the source's timeout and was cancelled. */
    TIMEOUT,
    /** The query returned no row (or NULL) where the result shape needs one. */
    NO_VALUE,
    /** The value is larger than the configured maximum and was not written. */
    VALUE_TOO_LARGE,
    /** The database could not be reached or refused the query. */
    ERROR
  }

  private final Kind kind;

  public SourceException(Kind kind, String message, Throwable cause) {
    super(message, cause);
    this.kind = kind;
  }

  public SourceException(Kind kind, String message) {
    this(kind, message, null);
  }

  public Kind kind() {
    return kind;
  }
}
