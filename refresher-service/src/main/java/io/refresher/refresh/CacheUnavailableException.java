package io.refresher.refresh;

/** Redis could not be reached or answered with an error. Transient: retry later. */
public class CacheUnavailableException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  public CacheUnavailableException(String message, Throwable cause) {
    super(message, cause);
  }
}
