package io.refresher.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import io.refresher.source.HttpRequestSpec;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotEmpty;
import jakarta.validation.constraints.NotNull;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The {@code http:} block of an HTTP source: the request it sends and how its response becomes the
 * value. See {@link HttpRequestSpec} and {@code docs/sources.md}.
 *
 * <pre>
 * sources:
 *   product-from-api:
 *     http:
 *       endpoint: catalog-api
 *       method: GET                  # or POST, with body:
 *       path: /products/{id}
 *       query: { lang: "{lang}" }
 *       headers: { Accept: application/json }
 *       acceptStatus: [200]
 *       pointer: /data               # optional: the JSON value at this pointer
 *     params: { id: long, lang: string }
 *     timeout: 2s
 * </pre>
 */
public class HttpSourceFactory {

  @NotBlank @JsonProperty private String endpoint;

  @NotBlank @JsonProperty private String method = "GET";

  @NotBlank @JsonProperty private String path;

  @NotNull @JsonProperty private Map<String, String> query = new LinkedHashMap<>();

  @NotNull @JsonProperty private Map<String, String> headers = new LinkedHashMap<>();

  /** A POST's JSON body template (any JSON value; strings may hold placeholders). */
  @JsonProperty private JsonNode body;

  @NotEmpty @JsonProperty private Set<Integer> acceptStatus = new TreeSet<>(Set.of(200));

  @JsonProperty private String pointer;

  public String getEndpoint() {
    return endpoint;
  }

  public void setEndpoint(String endpoint) {
    this.endpoint = endpoint;
  }

  public String getMethod() {
    return method;
  }

  public void setMethod(String method) {
    this.method = method;
  }

  public String getPath() {
    return path;
  }

  public void setPath(String path) {
    this.path = path;
  }

  public Map<String, String> getQuery() {
    return query;
  }

  public void setQuery(Map<String, String> query) {
    this.query = query;
  }

  public Map<String, String> getHeaders() {
    return headers;
  }

  public void setHeaders(Map<String, String> headers) {
    this.headers = headers;
  }

  public JsonNode getBody() {
    return body;
  }

  public void setBody(JsonNode body) {
    this.body = body;
  }

  public Set<Integer> getAcceptStatus() {
    return acceptStatus;
  }

  public void setAcceptStatus(Set<Integer> acceptStatus) {
    this.acceptStatus = acceptStatus;
  }

  public String getPointer() {
    return pointer;
  }

  public void setPointer(String pointer) {
    this.pointer = pointer;
  }

  public HttpRequestSpec build() {
    return new HttpRequestSpec(
        endpoint,
        method.trim().toUpperCase(Locale.ROOT),
        path,
        query,
        headers,
        body,
        acceptStatus,
        pointer == null || pointer.isEmpty() ? null : pointer);
  }
}
