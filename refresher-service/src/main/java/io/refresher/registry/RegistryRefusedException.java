package io.refresher.registry;

/**
 * The registry's database refused the request itself: a value it cannot hold, or a constraint it
 * enforces. Not transient (retrying the same request fails the same way); nothing was changed.
 * Validation should have refused such input first: this is the backstop at the store.
 */
public class RegistryRefusedException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  /** Why the store refused. */
  public enum Reason {
    /** A value the store cannot hold (PostgreSQL's data exceptions, SQLSTATE class 22). */
    INVALID_VALUE,
    /** A uniqueness, foreign-key or check constraint (SQLSTATE class 23). */
    CONFLICT
  }

  private final Reason reason;

  public RegistryRefusedException(Reason reason, String message, Throwable cause) {
    super(message, cause);
    this.reason = reason;
  }

  public Reason reason() {
    return reason;
  }
}
