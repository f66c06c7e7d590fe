package io.refresher.client;

/** A {@link Loader} failed with a checked exception (its cause), and there was no value to return instead. */
public final class LoaderException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  public LoaderException(String message, Throwable cause) {
    super(message, cause);
  }
}
