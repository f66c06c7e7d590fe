package io.refresher.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.refresher.refresh.Loaded;
import io.refresher.refresh.ValueLoader;
import io.refresher.registry.Registration;
import io.refresher.source.ParamType;
import io.refresher.source.SourceCatalog;
import io.refresher.source.SourceDefinition;
import io.refresher.source.SourceException;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Computes values of HTTP sources: renders the source's request from the registration's
 * parameters ({@link HttpRequestTemplate}), sends it to its endpoint ({@link HttpExchange}) and
 * keeps the response's body, or the JSON at its pointer ({@link ResponseValue}), as the value.
 *
 * <p>Every source's request is parsed once, at start; a refresh only renders and sends it. Every
 * failure is a {@link SourceException} whose message names the source, the method and the path
 * (never the query, whose values could be anything, and never a header value, which may be a
 * token): {@code TIMEOUT} when the source's timeout passed (connect, response and body together),
 * {@code VALUE_TOO_LARGE} as soon as the body passes {@code maxValueBytes}, {@code HTTP_STATUS} for
 * a status the source does not accept (with its reason, and the server's {@code Retry-After} on a
 * 429 or 503), {@code NO_VALUE} when the pointer matches nothing, {@code ERROR} for everything else
 * (connection refused, unknown host, TLS, a body that is not JSON). What the server itself wrote
 * (the start of an error body, a JSON parser's complaint about the body) is never in the message,
 * which is recorded on the key: it is the exception's detail, for the service's log.
 *
 * <p>Revalidation: an HTTP source always can. The value is stored with the response's {@code ETag}
 * or {@code Last-Modified} ({@link HttpValidators}); the next refresh sends it back as {@code
 * If-None-Match} or {@code If-Modified-Since}, and a {@code 304} is {@link Loaded.Unchanged}: the
 * TTL is extended and the body is neither sent nor read.
 */
public final class HttpValueLoader implements ValueLoader {

  /** One source's request, endpoint and response handling, made at start. */
  private record Prepared(SourceDefinition source, HttpRequestTemplate template, HttpExchange exchange) {}

  private final SourceCatalog catalog;
  private final ObjectMapper json;
  private final Map<String, Prepared> prepared = new HashMap<>();

  /**
   * @param maxValueBytes the largest value a refresh may write ({@code refresh.maxValueSize}): a
   *     body is not read past it
   * @throws IllegalStateException when a source names an endpoint that is not configured, or its
   *     request does not parse (the configuration's validation refuses both first)
   */
  public HttpValueLoader(SourceCatalog catalog, HttpEndpoints endpoints, ObjectMapper json, long maxValueBytes) {
    this.catalog = catalog;
    this.json = json;
    for (SourceDefinition source : catalog.all()) {
      if (!source.isHttp()) {
        continue;
      }
      EndpointClient endpoint =
          endpoints
              .endpoint(source.http().endpoint())
              .orElseThrow(
                  () ->
                      new IllegalStateException(
                          "source '" + source.name() + "' names endpoint '" + source.http().endpoint() + "', which is not configured"));
      HttpRequestTemplate template;
      try {
        template = new HttpRequestTemplate(source.http(), endpoint.settings().baseUrl());
      } catch (IllegalArgumentException e) {
        throw new IllegalStateException("sources." + source.name() + ".http." + e.getMessage(), e);
      }
      HttpExchange exchange =
          new HttpExchange(
              endpoint,
              endpoints.deadlines(),
              source.timeout(),
              source.http().acceptStatus(),
              new ResponseValue(json, source.http().pointer()),
              maxValueBytes,
              endpoints.clock(),
              source.valueTtl(),
              source.notFound());
      prepared.put(source.name(), new Prepared(source, template, exchange));
    }
  }

  /** An HTTP source can always ask whether its value changed ({@code ETag}, {@code Last-Modified}). */
  @Override
  public boolean revalidates(Registration registration) {
    return prepared.containsKey(registration.source());
  }

  @Override
  public String load(Registration registration) throws SourceException {
    Loaded loaded = loadIfChanged(registration, null);
    if (loaded instanceof Loaded.Value computed) {
      return computed.value();
    }
    // no validator was sent, so no 304 counts as "unchanged": not reachable
    throw new SourceException(SourceException.Kind.ERROR, "source '" + registration.source() + "' answered 'unchanged' unasked");
  }

  @Override
  public Loaded loadIfChanged(Registration registration, String validator) throws SourceException {
    Prepared source = prepared(registration);
    String name = source.source().name();
    try {
      HttpRequestTemplate.Rendered rendered;
      try {
        rendered = source.template().render(typed(source.source(), registration.params()));
      } catch (TemplateValueException e) {
        throw new SourceException(SourceException.Kind.ERROR, "source '" + name + "': " + e.getMessage());
      }
      byte[] body = rendered.body() == null ? null : json.writeValueAsBytes(rendered.body());
      String label =
          "source '" + name + "' (" + rendered.method() + " " + rendered.path() + " at endpoint '"
              + source.source().http().endpoint() + "')";
      return source.exchange().run(rendered, body, HttpValidators.conditional(validator), label);
    } catch (JsonProcessingException e) {
      throw new SourceException(
          SourceException.Kind.ERROR, "source '" + name + "': its body could not be written", e.getOriginalMessage(), e, null);
    } catch (RuntimeException e) {
      throw new SourceException(
          SourceException.Kind.ERROR, "source '" + name + "' failed: " + e.getClass().getSimpleName(), String.valueOf(e), e, null);
    }
  }

  private Prepared prepared(Registration registration) throws SourceException {
    Prepared source = prepared.get(registration.source());
    if (source != null) {
      return source;
    }
    Optional<SourceDefinition> configured = catalog.find(registration.source());
    throw new SourceException(
        SourceException.Kind.ERROR,
        configured.isPresent()
            ? "source '" + registration.source() + "' is not an HTTP source"
            : "source '" + registration.source() + "' is no longer configured");
  }

  /** The registration's parameters converted to their declared types (numbers stay numbers in a JSON body). */
  private static Map<String, Object> typed(SourceDefinition source, Map<String, Object> params) throws SourceException {
    Map<String, Object> typed = new HashMap<>();
    for (Map.Entry<String, ParamType> param : source.params().entrySet()) {
      try {
        typed.put(param.getKey(), param.getValue().convert(params.get(param.getKey())));
      } catch (IllegalArgumentException e) {
        // only reachable when the configuration changed after the key was registered
        throw new SourceException(
            SourceException.Kind.ERROR, "parameter '" + param.getKey() + "' of source '" + source.name() + "' " + e.getMessage());
      }
    }
    return typed;
  }
}
