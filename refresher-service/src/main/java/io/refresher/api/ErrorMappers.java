package io.refresher.api;

import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.exc.InvalidFormatException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import io.refresher.refresh.CacheUnavailableException;
import io.refresher.registry.InvalidRegistrationException;
import io.refresher.registry.KeyNotFoundException;
import io.refresher.registry.RegistryUnavailableException;
import io.refresher.registry.TemplateNotFoundException;
import jakarta.ws.rs.NotAllowedException;
import jakarta.ws.rs.NotSupportedException;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;
import java.time.Duration;
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

  /** Bodies that are not JSON, or JSON of the wrong shape. */
  static final class JsonMapper implements ExceptionMapper<JsonProcessingException> {
    @Override
    public Response toResponse(JsonProcessingException e) {
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
      String id = UUID.randomUUID().toString();
      LOG.error("unexpected error handling an admin request (correlation id {})", id, e);
      return ApiErrors.response(new ApiError(500, "internal error", null, id));
    }
  }
}
