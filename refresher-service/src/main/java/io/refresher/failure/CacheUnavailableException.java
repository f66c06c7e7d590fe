package io.refresher.failure;

/** Redis could not be reached or answered with an error. Transient: retry later. */
public class CacheUnavailableException extends TransientFailure {

  private static final long serialVersionUID = 1L;

  public CacheUnavailableException(String message, Throwable cause) {
    super(message, cause);
  }
}
