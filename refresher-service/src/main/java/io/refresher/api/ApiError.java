package io.refresher.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.refresher.registry.FieldError;
import java.util.List;

/**
 * The body of every error response: the HTTP status, a sentence, and for input errors the fields
 * and the rules they broke. 5xx responses carry a correlation id that is also in the log line.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ApiError(int code, String message, List<FieldError> errors, String correlationId) {

  public static ApiError of(int code, String message) {
    return new ApiError(code, message, null, null);
  }

  public static ApiError of(int code, String message, String field, String rule) {
    return new ApiError(code, message, List.of(new FieldError(field, rule)), null);
  }
}
