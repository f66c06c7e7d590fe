package io.refresher.api;

import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonStreamContext;
import com.fasterxml.jackson.core.exc.StreamReadException;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.exc.InvalidFormatException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import io.refresher.failure.CacheUnavailableException;
import io.refresher.registry.InvalidRegistrationException;
import io.refresher.registry.KeyNotFoundException;
import io.refresher.registry.RegistryRefusedException;
import io.refresher.failure.RegistryUnavailableException;
import io.refresher.registry.TemplateNotFoundException;
import jakarta.ws.rs.NotAllowedException;
import jakarta.ws.rs.NotSupportedException;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Optional;
import java.util.UUID;
import org.glassfish.jersey.server.ResourceConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one place where exceptions become HTTP responses. Domain exceptions carry no HTTP; each
 * maps to a status here. 4xx are logged at DEBUG/WARN without a stack trace, 5xx at ERROR with a
 * correlation id that the response repeats.
 */
public final class ErrorMappers {

  private static final Logger LOG = LoggerFactory.getLogger(ErrorMappers.class);

  private ErrorMappers() {}

  public static void register(ResourceConfig jersey) {
    jersey.register(new InvalidRegistrationMapper());
    jersey.register(new KeyNotFoundMapper());
    jersey.register(new TemplateNotFoundMapper());
    jersey.register(new RegistryUnavailableMapper());
    jersey.register(new RegistryRefusedMapper());
    jersey.register(new CacheUnavailableMapper());
    jersey.register(new JsonMapper());
    jersey.register(new WebApplicationMapper());
    jersey.register(new UnexpectedMapper());
  }

  static final class InvalidRegistrationMapper implements ExceptionMapper<InvalidRegistrationException> {
    @Override
    public Response toResponse(InvalidRegistrationException e) {
      LOG.debug("rejected request: {}", e.getMessage());
      return ApiErrors.response(new ApiError(422, "invalid request: " + e.getMessage(), e.errors(), null));
    }
  }

  static final class KeyNotFoundMapper implements ExceptionMapper<KeyNotFoundException> {
    @Override
    public Response toResponse(KeyNotFoundException e) {
      return ApiErrors.response(ApiError.of(404, e.getMessage(), "key", "must be a registered key"));
    }
  }

  static final class TemplateNotFoundMapper implements ExceptionMapper<TemplateNotFoundException> {
    @Override
    public Response toResponse(TemplateNotFoundException e) {
      return ApiErrors.response(ApiError.of(404, e.getMessage(), "name", "must be the name of a template"));
    }
  }

  static final class RegistryUnavailableMapper implements ExceptionMapper<RegistryUnavailableException> {
    @Override
    public Response toResponse(RegistryUnavailableException e) {
      LOG.warn("admin request failed, registry unavailable: {}", e.getMessage());
      return unavailable("the registry database is unavailable; nothing was changed, retry later");
    }
  }

  /**
   * The database refused the input itself: not transient, so no 503 and no Retry-After (a client
   * would retry forever). Validation refuses such input first, naming its field; this is the
   * backstop.
   */
  static final class RegistryRefusedMapper implements ExceptionMapper<RegistryRefusedException> {
    @Override
    public Response toResponse(RegistryRefusedException e) {
      LOG.warn("admin request refused by the registry database: {}", e.getMessage());
      int status = e.reason() == RegistryRefusedException.Reason.CONFLICT ? 409 : 400;
      return ApiErrors.response(ApiError.of(status, e.getMessage() + "; nothing was changed"));
    }
  }

  static final class CacheUnavailableMapper implements ExceptionMapper<CacheUnavailableException> {
    @Override
    public Response toResponse(CacheUnavailableException e) {
      LOG.warn("admin request failed, Redis unavailable: {}", e.getMessage());
      return unavailable("Redis is unavailable; retry later");
    }
  }

  private static Response unavailable(String message) {
    return Response.fromResponse(ApiErrors.response(ApiError.of(503, message)))
        .header("Retry-After", Long.toString(Duration.ofSeconds(5).toSeconds()))
        .build();
  }

  /**
   * A body over the cap fails while it is read, deep inside whatever was reading it (Jackson,
   * Jersey): found among the causes, it is a 413 whatever wrapped it.
   */
  private static Optional<Response> tooLarge(Throwable e) {
    return RequestBodyLimit.TooLargeException.in(e)
        .map(tooLarge -> Response.fromResponse(ApiErrors.response(RequestBodyLimit.error(tooLarge.maxBytes())))
            .header("Connection", "close")
            .build());
  }

  /** Bodies that are not JSON, or JSON of the wrong shape. */
  static final class JsonMapper implements ExceptionMapper<JsonProcessingException> {
    @Override
    public Response toResponse(JsonProcessingException e) {
      Optional<Response> tooLarge = tooLarge(e);
      if (tooLarge.isPresent()) {
        return tooLarge.get();
      }
      Optional<String> duplicate = duplicateField(e);
      if (duplicate.isPresent()) {
        String field = duplicate.get();
        return ApiErrors.response(ApiError.of(400, "duplicate field '" + field + "'", field, "must appear only once"));
      }
      if (e instanceof JsonParseException) {
        return ApiErrors.response(ApiError.of(400, "malformed JSON", "body", "must be well-formed JSON"));
      }
      if (e instanceof UnrecognizedPropertyException unknown) {
        String field = unknown.getPropertyName();
        return ApiErrors.response(
            ApiError.of(400, "unknown field '" + field + "'", field, "is not a known field; allowed: " + unknown.getKnownPropertyIds()));
      }
      if (e instanceof JsonMappingException mapping) {
        String field = path(mapping);
        String rule = "has the wrong type";
        if ("ttl".equals(field)) {
          rule = "must be an ISO-8601 duration such as PT5M";
        } else if ("params".equals(field)) {
          rule = "must be a JSON object of parameter values";
        } else if (field.isEmpty()) {
          field = "body";
          rule = "must be a JSON object";
        } else if (mapping instanceof InvalidFormatException || mapping instanceof MismatchedInputException) {
          rule = "has the wrong type or format";
        }
        return ApiErrors.response(ApiError.of(400, "invalid JSON body: " + field + " " + rule, field, rule));
      }
      return ApiErrors.response(ApiError.of(400, "invalid JSON body", "body", "must be a JSON object"));
    }

    /**
     * The path of the field a strict parser found twice ({@code params.id}): duplicates are refused
     * rather than the last one silently winning.
     */
    private static Optional<String> duplicateField(JsonProcessingException e) {
      // Found by the parser, it may come wrapped by the deserializer that was reading (params).
      StreamReadException read = null;
      for (Throwable cause = e; cause != null && read == null; cause = cause.getCause() == cause ? null : cause.getCause()) {
        if (cause instanceof StreamReadException candidate
            && candidate.getOriginalMessage() != null
            && candidate.getOriginalMessage().startsWith(DUPLICATE)) {
          read = candidate;
        }
      }
      if (read == null) {
        return Optional.empty();
      }
      String message = read.getOriginalMessage();
      JsonParser parser = read.getProcessor();
      if (parser != null) {
        String path = path(parser.getParsingContext());
        if (!path.isEmpty()) {
          return Optional.of(path);
        }
      }
      int end = message.lastIndexOf('\'');
      return Optional.of(end > DUPLICATE.length() ? message.substring(DUPLICATE.length(), end) : "body");
    }

    private static final String DUPLICATE = "Duplicate field '";

    private static String path(JsonStreamContext context) {
      Deque<String> parts = new ArrayDeque<>();
      for (JsonStreamContext at = context; at != null && !at.inRoot(); at = at.getParent()) {
        if (at.inObject() && at.getCurrentName() != null) {
          parts.addFirst(at.getCurrentName());
        } else if (at.inArray()) {
          parts.addFirst("[" + at.getCurrentIndex() + "]");
        }
      }
      return String.join(".", parts).replace(".[", "[");
    }

    private static String path(JsonMappingException e) {
      StringBuilder path = new StringBuilder();
      for (JsonMappingException.Reference reference : e.getPath()) {
        if (reference.getFieldName() != null) {
          if (path.length() > 0) {
            path.append('.');
          }
          path.append(reference.getFieldName());
        } else if (reference.getIndex() >= 0) {
          path.append('[').append(reference.getIndex()).append(']');
        }
      }
      return path.toString();
    }
  }

  /** Jersey's own errors (404 route, 405, 415, 406, 401 from auth) as JSON. */
  static final class WebApplicationMapper implements ExceptionMapper<WebApplicationException> {
    @Override
    public Response toResponse(WebApplicationException e) {
      Optional<Response> tooLarge = tooLarge(e);
      if (tooLarge.isPresent()) {
        return tooLarge.get();
      }
      Response original = e.getResponse();
      int status = original.getStatus();
      if (original.hasEntity() && original.getEntity() instanceof ApiError) {
        return original;
      }
      ApiError error;
      if (e instanceof NotSupportedException) {
        error = ApiError.of(415, "unsupported content type", "Content-Type", "must be application/json");
      } else if (e instanceof NotAllowedException) {
        error = ApiError.of(405, "method not allowed; allowed: " + original.getAllowedMethods());
      } else if (status == 404) {
        error = ApiError.of(404, "no such resource");
      } else if (status >= 500) {
        return new UnexpectedMapper().toResponse(e);
      } else {
        error = ApiError.of(status, original.getStatusInfo().getReasonPhrase());
      }
      Response.ResponseBuilder builder = Response.fromResponse(ApiErrors.response(error));
      if (e instanceof NotAllowedException) {
        builder.allow(original.getAllowedMethods());
      }
      return builder.build();
    }
  }

  static final class UnexpectedMapper implements ExceptionMapper<Throwable> {
    @Override
    public Response toResponse(Throwable e) {
      Optional<Response> tooLarge = tooLarge(e);
      if (tooLarge.isPresent()) {
        return tooLarge.get();
      }
      String id = UUID.randomUUID().toString();
      LOG.error("unexpected error handling an admin request (correlation id {})", id, e);
      return ApiErrors.response(new ApiError(500, "internal error", null, id));
    }
  }
}
