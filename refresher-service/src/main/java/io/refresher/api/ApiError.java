package io.refresher.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.refresher.registry.FieldError;
import io.swagger.v3.oas.annotations.media.Schema;
import java.util.List;

/**
 * The body of every error response: the HTTP status, a sentence, and for input errors the fields
 * and the rules they broke. 5xx responses carry a correlation id that is also in the log line.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@Schema(description = "Every error response, whether the API or the HTTP server refuses the request.")
public record ApiError(
    @Schema(description = "The HTTP status.", requiredMode = Schema.RequiredMode.REQUIRED, minimum = "400", maximum = "599")
        int code,
    @Schema(description = "What went wrong, as a sentence.", requiredMode = Schema.RequiredMode.REQUIRED, minLength = 1)
        String message,
    @Schema(description = "For input errors: each field (ttl, params.id, key, body, Content-Type, ...) and the rule it broke.")
        List<FieldError> errors,
    @Schema(description = "For 5xx: the id of the log line with the cause.")
        String correlationId) {

  public static ApiError of(int code, String message) {
    return new ApiError(code, message, null, null);
  }

  public static ApiError of(int code, String message, String field, String rule) {
    return new ApiError(code, message, List.of(new FieldError(field, rule)), null);
  }
}
