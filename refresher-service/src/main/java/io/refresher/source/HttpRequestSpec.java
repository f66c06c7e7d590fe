package io.refresher.source;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The request an HTTP source sends, as declared in configuration. {@code {param}} placeholders in
 * the path, the query values, the header values and the body's strings take the registration's
 * parameter values, each encoded for where it stands; nothing from a registration can change the
 * endpoint's scheme, host or base path.
 *
 * @param endpoint the named endpoint ({@code httpEndpoints}) the request goes to
 * @param method {@code GET} or {@code POST}
 * @param path appended to the endpoint's base URL; starts with {@code /}
 * @param query query parameters in order, values as templates
 * @param headers extra headers, values as templates (over the endpoint's defaults)
 * @param body a {@code POST}'s JSON body template; null for none
 * @param acceptStatus the statuses whose body is the value; any other is a failure
 * @param pointer a JSON Pointer ({@code /data/items}) picking the value out of a JSON body; null
 *     or empty for the body as-is
 */
public record HttpRequestSpec(
    String endpoint,
    String method,
    String path,
    Map<String, String> query,
    Map<String, String> headers,
    JsonNode body,
    Set<Integer> acceptStatus,
    String pointer) {

  public HttpRequestSpec {
    query = Collections.unmodifiableMap(new LinkedHashMap<>(query));
    headers = Collections.unmodifiableMap(new LinkedHashMap<>(headers));
    acceptStatus = Collections.unmodifiableSet(new TreeSet<>(acceptStatus));
  }
}
