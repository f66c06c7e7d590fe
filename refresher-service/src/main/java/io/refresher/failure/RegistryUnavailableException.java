package io.refresher.failure;

/**
 * The registry's database could not be reached. Transient: the caller may retry; nothing was
 * changed.
 */
public class RegistryUnavailableException extends TransientFailure {

  private static final long serialVersionUID = 1L;

  public RegistryUnavailableException(String message, Throwable cause) {
    super(message, cause);
  }
}
