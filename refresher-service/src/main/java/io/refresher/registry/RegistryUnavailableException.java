package io.refresher.registry;

/**
 * The registry's database could not be reached. Transient: the caller may retry; nothing was
 * changed.
 */
public class RegistryUnavailableException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  public RegistryUnavailableException(String message, Throwable cause) {
    super(message, cause);
  }
}
