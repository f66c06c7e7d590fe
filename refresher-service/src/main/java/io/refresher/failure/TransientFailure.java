package io.refresher.failure;

/**
 * A failure that says nothing about the request or the data, only that a store the service needs
 * (Redis, the registry's PostgreSQL) could not be reached or answered with an error: the caller may
 * retry later, and nothing was changed. The admin API answers it 503; background work keeps what
 * it had and tries again on its next round.
 */
public abstract class TransientFailure extends RuntimeException {

  private static final long serialVersionUID = 1L;

  protected TransientFailure(String message, Throwable cause) {
    super(message, cause);
  }
}
