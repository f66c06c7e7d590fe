package io.refresher.client.admin;

import java.util.List;

/**
 * The admin API refused a call ({@code 4xx}), or could not serve it ({@code 5xx}, unreachable)
 * after the client's retries.
 */
public class RefresherAdminException extends RuntimeException {

  /** One field the service named and the rule its value broke. */
  public record FieldError(String field, String rule) {}

  private final int status;
  private final List<FieldError> errors;

  public RefresherAdminException(int status, String message, List<FieldError> errors, Throwable cause) {
    super(message, cause);
    this.status = status;
    this.errors = errors == null ? List.of() : List.copyOf(errors);
  }

  /** The HTTP status, or 0 when the service could not be reached. */
  public int status() {
    return status;
  }

  /** For input errors (422, 400): each field and the rule it broke; empty otherwise. */
  public List<FieldError> errors() {
    return errors;
  }

  /** Whether the service was unreachable or unavailable (5xx, no answer), not refusing the input. */
  public boolean unavailable() {
    return status == 0 || status >= 500;
  }
}
