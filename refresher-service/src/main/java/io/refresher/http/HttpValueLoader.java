package io.refresher.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.refresher.refresh.BatchItem;
import io.refresher.refresh.Loaded;
import io.refresher.refresh.ValueLoader;
import io.refresher.registry.Registration;
import io.refresher.source.BatchForm;
import io.refresher.source.ParamType;
import io.refresher.source.SourceCatalog;
import io.refresher.source.SourceDefinition;
import io.refresher.source.SourceException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
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

  /** A source's batch request: its template, and an exchange whose value is the response's items. */
  private record PreparedBatch(BatchForm form, HttpRequestTemplate template, HttpExchange exchange) {}

  private final Map<String, PreparedBatch> batches = new HashMap<>();

  /** The largest batch response read: it is held in memory whole, as JSON, while it is split. */
  static final long MAX_BATCH_RESPONSE_BYTES = 64L * 1024 * 1024;

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
      BatchForm batch = source.batch();
      if (batch != null && batch.http() != null) {
        HttpRequestTemplate batchTemplate;
        try {
          batchTemplate = new HttpRequestTemplate(batch.http(), endpoint.settings().baseUrl());
        } catch (IllegalArgumentException e) {
          throw new IllegalStateException("sources." + source.name() + ".batch.http." + e.getMessage(), e);
        }
        HttpExchange batchExchange =
            new HttpExchange(
                endpoint,
                endpoints.deadlines(),
                source.timeout(),
                batch.http().acceptStatus(),
                new ResponseValue(json, batch.http().pointer()),
                // a batch's response holds many values: bounded by that many values' worth
                Math.min(maxValueBytes * batch.maxBatch(), MAX_BATCH_RESPONSE_BYTES),
                endpoints.clock(),
                source.valueTtl(),
                null); // a status of the batch request is never "these keys are not found"
        batches.put(source.name(), new PreparedBatch(batch, batchTemplate, batchExchange));
      }
    }
  }

  @Override
  public Optional<BatchForm> batchForm(Registration registration) {
    PreparedBatch batch = batches.get(registration.source());
    return batch == null ? Optional.empty() : Optional.of(batch.form());
  }

  /**
   * Sends the source's batch request once, its JSON body holding the keys' parameter values as one
   * array, and hands each item of the response's array (at the request's pointer) to the keys whose
   * value its {@code itemId} holds; the item (or the JSON at {@code itemValue} within it) is the
   * value, stored as the single request's pointer would store it. A key without an item gets the
   * source's not-found rule (the marker, or a failure of its own); an item without its value fails
   * its keys alone. The response's {@code Cache-Control} sets every value's TTL when the source
   * reads it.
   */
  @Override
  public Map<String, BatchItem> loadBatch(List<Registration> registrations) throws SourceException {
    Prepared source = prepared(registrations.get(0));
    String name = source.source().name();
    PreparedBatch batch = batches.get(name);
    if (batch == null) {
      return ValueLoader.super.loadBatch(registrations);
    }
    Map.Entry<String, ParamType> param = source.source().params().entrySet().iterator().next();
    Map<String, BatchItem> items = new HashMap<>();
    Map<Object, List<Registration>> byValue = new LinkedHashMap<>();
    for (Registration registration : registrations) {
      try {
        byValue.computeIfAbsent(param.getValue().convert(registration.params().get(param.getKey())), value -> new ArrayList<>())
            .add(registration);
      } catch (IllegalArgumentException e) {
        items.put(
            registration.key(),
            BatchItem.failed(new SourceException(SourceException.Kind.ERROR, "parameter '" + param.getKey() + "' of source '" + name + "' " + e.getMessage())));
      }
    }
    if (byValue.isEmpty()) {
      return items;
    }
    String label;
    Loaded.Value answer;
    try {
      HttpRequestTemplate.Rendered rendered;
      try {
        rendered = batch.template().render(Map.of(param.getKey(), new ArrayList<>(byValue.keySet())));
      } catch (TemplateValueException e) {
        throw new SourceException(SourceException.Kind.ERROR, "source '" + name + "' batch: " + e.getMessage());
      }
      label =
          "source '" + name + "' batch (" + rendered.method() + " " + rendered.path() + " at endpoint '"
              + source.source().http().endpoint() + "')";
      byte[] body = rendered.body() == null ? null : json.writeValueAsBytes(rendered.body());
      Loaded loaded = batch.exchange().run(rendered, body, HttpValidators.conditional(null), label);
      if (!(loaded instanceof Loaded.Value value)) {
        throw new SourceException(SourceException.Kind.ERROR, label + " answered 'unchanged' unasked");
      }
      answer = value;
    } catch (JsonProcessingException e) {
      throw new SourceException(
          SourceException.Kind.ERROR, "source '" + name + "': its batch body could not be written", e.getOriginalMessage(), e, null);
    }
    JsonNode array;
    try {
      array = json.readTree(answer.value());
    } catch (JsonProcessingException e) {
      array = null;
    }
    if (array == null || !array.isArray()) {
      throw new SourceException(
          SourceException.Kind.ERROR, label + ": the JSON at " + batch.form().http().pointer() + " is not an array of items");
    }
    com.fasterxml.jackson.core.JsonPointer idAt = com.fasterxml.jackson.core.JsonPointer.compile(batch.form().itemId());
    com.fasterxml.jackson.core.JsonPointer valueAt =
        batch.form().itemValue() == null ? null : com.fasterxml.jackson.core.JsonPointer.compile(batch.form().itemValue());
    for (JsonNode item : array) {
      List<Registration> owners = owners(byValue, param.getValue(), item.at(idAt));
      if (owners == null || items.containsKey(owners.get(0).key())) {
        continue; // an item nobody asked for, or a second one for the same id
      }
      BatchItem value = itemValue(item, valueAt, label, answer.ttl());
      for (Registration owner : owners) {
        items.put(owner.key(), value);
      }
    }
    for (List<Registration> owners : byValue.values()) {
      for (Registration owner : owners) {
        if (!items.containsKey(owner.key())) {
          items.put(owner.key(), notFound(source.source(), label));
        }
      }
    }
    return items;
  }

  /** The keys whose parameter value an item's id holds; null for none. */
  private static List<Registration> owners(Map<Object, List<Registration>> byValue, ParamType type, JsonNode id) {
    if (id.isMissingNode() || id.isNull() || id.isContainerNode()) {
      return null;
    }
    Object raw = id.isNumber() ? id.numberValue() : id.isBoolean() ? (Object) id.booleanValue() : id.asText();
    try {
      return byValue.get(type.convert(raw));
    } catch (IllegalArgumentException e) {
      return null;
    }
  }

  /** An item's value: the item, or the JSON at {@code valueAt} in it; a string as its text. */
  private BatchItem itemValue(JsonNode item, com.fasterxml.jackson.core.JsonPointer valueAt, String label, java.time.Duration ttl) {
    JsonNode node = valueAt == null ? item : item.at(valueAt);
    if (node.isMissingNode() || node.isNull()) {
      return BatchItem.failed(
          new SourceException(SourceException.Kind.NO_VALUE, label + ": its item has no value at " + valueAt));
    }
    try {
      return BatchItem.of(new Loaded.Value(node.isTextual() ? node.textValue() : json.writeValueAsString(node), null, ttl));
    } catch (JsonProcessingException e) {
      return BatchItem.failed(new SourceException(SourceException.Kind.ERROR, label + ": an item could not be written", e.getOriginalMessage(), e, null));
    }
  }

  /** A key the response had no item for: the not-found marker when the source has the rule. */
  private static BatchItem notFound(SourceDefinition source, String label) {
    if (source.notFound() != null) {
      return BatchItem.of(new Loaded.Value(io.refresher.client.protocol.NotFoundMarker.VALUE, null, source.notFound().ttl()));
    }
    return BatchItem.failed(new SourceException(SourceException.Kind.NO_VALUE, label + " answered no item for the key"));
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
