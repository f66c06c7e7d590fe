package io.refresher.registry;

import java.util.List;

/** A request broke one or more rules; nothing was changed. */
public class InvalidRegistrationException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  private final transient List<FieldError> errors;

  public InvalidRegistrationException(List<FieldError> errors) {
    super(describe(errors));
    this.errors = List.copyOf(errors);
  }

  public InvalidRegistrationException(String field, String rule) {
    this(List.of(new FieldError(field, rule)));
  }

  public List<FieldError> errors() {
    return errors;
  }

  private static String describe(List<FieldError> errors) {
    StringBuilder text = new StringBuilder();
    for (FieldError error : errors) {
      if (text.length() > 0) {
        text.append("; ");
      }
      text.append(error.field()).append(' ').append(error.rule());
    }
    return text.toString();
  }
}
