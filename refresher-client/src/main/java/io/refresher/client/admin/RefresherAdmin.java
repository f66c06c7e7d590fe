package io.refresher.client.admin;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * A client of Refresher's admin API, for applications and tools: register keys and templates,
 * refresh keys after a commit, read the hot set and the refill. One instance is thread-safe and
 * meant to be shared.
 *
 * <p>A {@code 503} (PostgreSQL or Redis briefly unavailable to the service) is retried after the
 * answer's {@code Retry-After} (at most {@link Builder#maxRetryWait}), as are connection failures,
 * up to {@link Builder#maxRetries} times; then, as for every refusal, a {@link
 * RefresherAdminException} says why. Every call is safe to repeat: registrations are put whole,
 * deletes of what is gone answer false, and a refresh twice is a refresh.
 *
 * <pre>{@code
 * RefresherAdmin admin = RefresherAdmin.builder(URI.create("http://refresher:8080"))
 *     .token(System.getenv("REFRESHER_ADMIN_TOKEN"))
 *     .build();
 * admin.refresh(List.of("product:42"));   // after the commit that changed product 42
 * }</pre>
 */
public final class RefresherAdmin {

  /** Most entries the service returns in one page of keys or templates. */
  static final int PAGE = 1000;

  private static final TypeReference<Map<String, Object>> PARAMS = new TypeReference<>() {};

  private final HttpClient http;
  private final URI server;
  private final String authorization;
  private final Duration timeout;
  private final int maxRetries;
  private final Duration maxRetryWait;
  private final ObjectMapper json = new ObjectMapper();

  private RefresherAdmin(Builder builder) {
    this.http = builder.http != null ? builder.http : HttpClient.newBuilder().connectTimeout(builder.timeout).build();
    String text = builder.server.toString();
    this.server = URI.create(text.endsWith("/") ? text.substring(0, text.length() - 1) : text);
    this.authorization = "Bearer " + Objects.requireNonNull(builder.token, "token");
    this.timeout = builder.timeout;
    this.maxRetries = builder.maxRetries;
    this.maxRetryWait = builder.maxRetryWait;
  }

  /** @param server the service's application port, e.g. {@code http://refresher:8080} */
  public static Builder builder(URI server) {
    return new Builder(server);
  }

  public static final class Builder {
    private final URI server;
    private String token;
    private Duration timeout = Duration.ofSeconds(30);
    private int maxRetries = 5;
    private Duration maxRetryWait = Duration.ofSeconds(10);
    private HttpClient http;

    private Builder(URI server) {
      this.server = Objects.requireNonNull(server, "server");
    }

    /** An admin token, or a read token for the read calls. */
    public Builder token(String token) {
      this.token = token;
      return this;
    }

    /** Longest wait for one answer (and for the connection). Default 30 s. */
    public Builder timeout(Duration timeout) {
      this.timeout = Objects.requireNonNull(timeout);
      return this;
    }

    /** Retries of a call answered 503 or not answered at all. Default 5. */
    public Builder maxRetries(int maxRetries) {
      if (maxRetries < 0) {
        throw new IllegalArgumentException("maxRetries must not be negative");
      }
      this.maxRetries = maxRetries;
      return this;
    }

    /** Longest wait before a retry, whatever {@code Retry-After} says. Default 10 s. */
    public Builder maxRetryWait(Duration maxRetryWait) {
      this.maxRetryWait = Objects.requireNonNull(maxRetryWait);
      return this;
    }

    /** The HTTP client to use (a proxy, TLS settings); by default a new one. */
    public Builder httpClient(HttpClient http) {
      this.http = http;
      return this;
    }

    public RefresherAdmin build() {
      return new RefresherAdmin(this);
    }
  }

  // ---- keys

  /** Registers or replaces a key; its value is computed at once. @return true when it was new */
  public boolean putKey(String key, KeySpec spec) {
    ObjectNode body = json.createObjectNode();
    body.put("source", spec.source());
    body.set("params", json.valueToTree(spec.params()));
    body.put("ttl", spec.ttl().toString());
    if (spec.policy() != null) {
      body.put("policy", spec.policy());
    }
    return send("PUT", "/v1/keys/" + segment(key), body).status() == 201;
  }

  /** A registered key, or empty (a key only a template covers is not registered). */
  public Optional<KeyRegistration> key(String key) {
    Answer answer = send("GET", "/v1/keys/" + segment(key), null, 404);
    boolean coveredByATemplate = answer.status() != 404 && answer.body().hasNonNull("template");
    return answer.status() == 404 || coveredByATemplate ? Optional.empty() : Optional.of(keyOf(answer.body()));
  }

  /** A key's registration and live status, as {@code GET /v1/keys/{key}} answers it. */
  public Optional<JsonNode> keyStatus(String key) {
    Answer answer = send("GET", "/v1/keys/" + segment(key), null, 404);
    return answer.status() == 404 ? Optional.empty() : Optional.of(answer.body());
  }

  /** @param evict also delete the value now (else it expires on its own) @return false if it was not registered */
  public boolean deleteKey(String key, boolean evict) {
    return send("DELETE", "/v1/keys/" + segment(key) + (evict ? "?evict=true" : ""), null, 404).status() == 204;
  }

  /** Every registered key that starts with {@code prefix} ("" for all), in key order. */
  public List<KeyRegistration> keys(String prefix) {
    List<KeyRegistration> keys = new ArrayList<>();
    String after = "";
    while (true) {
      JsonNode page = send("GET", "/v1/keys?limit=" + PAGE + "&prefix=" + query(prefix) + "&after=" + query(after), null).body();
      page.path("items").forEach(item -> keys.add(keyOf(item)));
      if (page.path("next").isNull() || page.path("next").isMissingNode()) {
        return keys;
      }
      after = page.path("next").asText();
    }
  }

  // ---- templates

  /** Creates or replaces a template. @return true when it was new */
  public boolean putTemplate(String name, TemplateSpec spec) {
    ObjectNode body = json.createObjectNode();
    body.put("pattern", spec.pattern());
    body.put("source", spec.source());
    body.set("params", json.valueToTree(spec.params()));
    body.put("ttl", spec.ttl().toString());
    return send("PUT", "/v1/templates/" + segment(name), body).status() == 201;
  }

  public Optional<TemplateRegistration> template(String name) {
    Answer answer = send("GET", "/v1/templates/" + segment(name), null, 404);
    return answer.status() == 404 ? Optional.empty() : Optional.of(templateOf(answer.body()));
  }

  /** @return false if there was no such template */
  public boolean deleteTemplate(String name) {
    return send("DELETE", "/v1/templates/" + segment(name), null, 404).status() == 204;
  }

  /** Every template, in name order. */
  public List<TemplateRegistration> templates() {
    List<TemplateRegistration> templates = new ArrayList<>();
    String after = "";
    while (true) {
      JsonNode page = send("GET", "/v1/templates?limit=" + PAGE + "&after=" + query(after), null).body();
      page.path("items").forEach(item -> templates.add(templateOf(item)));
      if (page.path("next").isNull() || page.path("next").isMissingNode()) {
        return templates;
      }
      after = page.path("next").asText();
    }
  }

  // ---- refreshes, the hot set, the refill, the change log

  /** Refreshes one key now (registered, or covered by a template); the outcome as the service gives it. */
  public JsonNode refresh(String key) {
    return send("POST", "/v1/keys/" + segment(key) + "/refresh", null).body();
  }

  /** Refreshes these keys now, each within its datasource's load bound; each key's outcome. */
  public JsonNode refresh(Collection<String> keys) {
    ObjectNode body = json.createObjectNode();
    ArrayNode list = body.putArray("keys");
    keys.forEach(list::add);
    return send("POST", "/v1/refresh", body).body();
  }

  /** Refreshes the keys of a template that these placeholder values name (one object per key). */
  public JsonNode refreshTemplate(String template, List<Map<String, Object>> params) {
    ObjectNode body = json.createObjectNode();
    body.put("template", template);
    body.set("params", json.valueToTree(params));
    return send("POST", "/v1/refresh", body).body();
  }

  /** The hottest keys, hottest first. */
  public JsonNode hot(int limit) {
    return send("GET", "/v1/hot?limit=" + limit, null).body();
  }

  /** Keys read often that nothing covers, hottest first, with the template pattern that would cover each. */
  public JsonNode uncoveredHotKeys(int limit) {
    return send("GET", "/v1/hot/uncovered?limit=" + limit, null).body();
  }

  /** The last refill and the load bound it runs under. */
  public JsonNode prewarm() {
    return send("GET", "/v1/prewarm", null).body();
  }

  /** Starts a refill of the popular keys missing from Redis (409 while one runs: a refusal). */
  public JsonNode startPrewarm() {
    return send("POST", "/v1/prewarm", null).body();
  }

  /** The newest changes of registrations and templates (of one key, or all with null), newest first. */
  public JsonNode changes(String key, int limit) {
    return send("GET", "/v1/changes?limit=" + limit + (key == null ? "" : "&key=" + query(key)), null).body();
  }

  // ---- the wire

  record Answer(int status, JsonNode body) {}

  private Answer send(String method, String path, JsonNode body, int... alsoAccepted) {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(server + path))
            .timeout(timeout)
            .header("Authorization", authorization)
            .header("Accept", "application/json");
    if (body != null) {
      request.header("Content-Type", "application/json").method(method, HttpRequest.BodyPublishers.ofString(body.toString()));
    } else {
      request.method(method, HttpRequest.BodyPublishers.noBody());
    }
    HttpRequest built = request.build();
    for (int attempt = 0; ; attempt++) {
      HttpResponse<String> response;
      try {
        response = http.send(built, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
      } catch (IOException e) {
        if (attempt >= maxRetries) {
          String why = e.getMessage() == null ? e.getClass().getSimpleName() : e.getClass().getSimpleName() + ": " + e.getMessage();
          throw new RefresherAdminException(0, method + " " + path + " on " + server + ": the service did not answer (" + why + ")", null, e);
        }
        pause(RetryAfter.backoff(attempt, maxRetryWait));
        continue;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new RefresherAdminException(0, method + " " + path + ": interrupted", null, e);
      }
      int status = response.statusCode();
      if (status == 503 && attempt < maxRetries) {
        pause(RetryAfter.of(response.headers().firstValue("Retry-After"), attempt, maxRetryWait));
        continue;
      }
      if (status / 100 == 2 || contains(alsoAccepted, status)) {
        return new Answer(status, parse(response.body()));
      }
      throw refusal(method, path, status, response.body());
    }
  }

  private RefresherAdminException refusal(String method, String path, int status, String text) {
    JsonNode error = parseQuietly(text);
    String message = error.path("message").asText(text == null || text.isBlank() ? "HTTP " + status : text);
    List<RefresherAdminException.FieldError> errors = new ArrayList<>();
    error.path("errors").forEach(e -> errors.add(new RefresherAdminException.FieldError(e.path("field").asText(), e.path("rule").asText())));
    StringBuilder full = new StringBuilder(method).append(' ').append(path).append(": ").append(status).append(' ').append(message);
    errors.forEach(e -> full.append("; ").append(e.field()).append(": ").append(e.rule()));
    return new RefresherAdminException(status, full.toString(), errors, null);
  }

  private static void pause(Duration wait) {
    try {
      Thread.sleep(wait.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new RefresherAdminException(0, "interrupted while waiting to retry", null, e);
    }
  }

  private JsonNode parse(String text) {
    if (text == null || text.isBlank()) {
      return json.nullNode();
    }
    try {
      return json.readTree(text);
    } catch (JsonProcessingException e) {
      throw new RefresherAdminException(0, "the service's answer is not JSON: " + e.getOriginalMessage(), null, e);
    }
  }

  private JsonNode parseQuietly(String text) {
    try {
      return text == null || text.isBlank() ? json.nullNode() : json.readTree(text);
    } catch (JsonProcessingException e) {
      return json.nullNode();
    }
  }

  private KeyRegistration keyOf(JsonNode view) {
    String policy = view.path("policy").isMissingNode() || view.path("policy").isNull() ? null : view.path("policy").asText();
    return new KeyRegistration(
        view.path("key").asText(),
        new KeySpec(view.path("source").asText(), params(view.path("params")), Duration.parse(view.path("ttl").asText()), policy));
  }

  private TemplateRegistration templateOf(JsonNode view) {
    return new TemplateRegistration(
        view.path("name").asText(),
        new TemplateSpec(
            view.path("pattern").asText(), view.path("source").asText(), params(view.path("params")), Duration.parse(view.path("ttl").asText())));
  }

  private Map<String, Object> params(JsonNode params) {
    return params.isObject() ? json.convertValue(params, PARAMS) : Map.of();
  }

  /** A key or name as one path segment: everything but unreserved characters percent-encoded. */
  static String segment(String text) {
    return URLEncoder.encode(text, StandardCharsets.UTF_8).replace("+", "%20");
  }

  private static String query(String text) {
    return URLEncoder.encode(text == null ? "" : text, StandardCharsets.UTF_8);
  }

  private static boolean contains(int[] values, int value) {
    for (int each : values) {
      if (each == value) {
        return true;
      }
    }
    return false;
  }
}
