package io.refresher.http;

import com.fasterxml.jackson.databind.JsonNode;
import io.refresher.source.HttpRequestSpec;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * One HTTP source's request, parsed once at start, and rendered for each refresh from the
 * registration's typed parameter values, every value encoded for where it stands:
 *
 * <ul>
 *   <li>path: the endpoint's base URL (scheme, host, port and base path, fixed by configuration)
 *       and then the source's path, whose literal text is sent as configured (it is URI syntax,
 *       checked at start) and whose placeholders are percent-encoded as part of one segment
 *       ({@link UriEncoding}): a value holding {@code /}, {@code ?}, {@code #}, {@code %} or {@code
 *       @} stays inside its segment; a segment that would read {@code .} or {@code ..} has its dots
 *       encoded; a segment made empty by its values is refused ({@code /users/{id}} with an empty id
 *       would name the collection instead of a user);
 *   <li>query: names and values, literal text and values alike, encoded as query components (the
 *       same strict set, so {@code & = + #} and spaces are encoded, a space as {@code %20});
 *   <li>headers: a value goes in as text, and a value with a control character (CR, LF, NUL, ...)
 *       or a character outside ASCII is refused, naming the parameter, rather than encoded: a header
 *       has no encoding the server would undo, and a silently changed value would be worse;
 *   <li>body ({@code POST}): a JSON tree ({@link BodyTemplate}).
 * </ul>
 *
 * <p>The URI is handed to the client already encoded and is sent byte for byte as rendered: HTTP
 * Client 5 takes the raw path and query and neither decodes nor normalises them.
 */
final class HttpRequestTemplate {

  /** One header, name and rendered value. */
  record Header(String name, String value) {}

  /** A request ready to send. */
  record Rendered(String method, URI uri, List<Header> headers, JsonNode body) {

    /** The path of the request, without the query (whose values may be anything), for messages. */
    String path() {
      return uri.getRawPath();
    }
  }

  private final String method;
  private final String base;
  private final List<TextTemplate> segments = new ArrayList<>();
  private final Map<String, TextTemplate> query = new LinkedHashMap<>();
  private final Map<String, TextTemplate> headers = new LinkedHashMap<>();
  private final BodyTemplate body;
  private final Set<String> placeholders = new LinkedHashSet<>();

  /**
   * @param baseUrl the endpoint's base URL: scheme, host, optional port and base path
   * @throws IllegalArgumentException when a template's placeholder syntax is broken (the
   *     configuration's validation refuses such a source first)
   */
  HttpRequestTemplate(HttpRequestSpec spec, URI baseUrl) {
    this.method = spec.method().toUpperCase(Locale.ROOT);
    String basePath = baseUrl.getRawPath() == null ? "" : baseUrl.getRawPath();
    if (basePath.endsWith("/")) {
      basePath = basePath.substring(0, basePath.length() - 1);
    }
    this.base = baseUrl.getScheme().toLowerCase(Locale.ROOT) + "://" + baseUrl.getRawAuthority() + basePath;
    String path = spec.path().startsWith("/") ? spec.path().substring(1) : spec.path();
    for (String segment : path.split("/", -1)) {
      segments.add(parse(segment, "path"));
    }
    spec.query().forEach((name, value) -> query.put(name, parse(value, "query." + name)));
    spec.headers().forEach((name, value) -> headers.put(name, parse(value, "headers." + name)));
    this.body = spec.body() == null ? null : new BodyTemplate(spec.body());
    segments.forEach(segment -> placeholders.addAll(segment.placeholders()));
    query.values().forEach(value -> placeholders.addAll(value.placeholders()));
    headers.values().forEach(value -> placeholders.addAll(value.placeholders()));
    if (body != null) {
      placeholders.addAll(body.placeholders());
    }
  }

  private static TextTemplate parse(String text, String where) {
    try {
      return TextTemplate.parse(text);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(where + " " + e.getMessage(), e);
    }
  }

  /** Every parameter the request uses. */
  Set<String> placeholders() {
    return placeholders;
  }

  String method() {
    return method;
  }

  /**
   * The request for these parameter values (converted to their declared types).
   *
   * @throws TemplateValueException when a value cannot go where its placeholder stands; the
   *     message names the parameter and the place, never the value
   */
  Rendered render(Map<String, Object> values) throws TemplateValueException {
    StringBuilder uri = new StringBuilder(base.length() + 64).append(base);
    for (int i = 0; i < segments.size(); i++) {
      TextTemplate segment = segments.get(i);
      String rendered = segment.render(literal -> literal, name -> UriEncoding.encode(ParamText.of(name, values.get(name))));
      if (!segment.placeholders().isEmpty()) {
        if (rendered.isEmpty()) {
          throw new TemplateValueException(
              describe(segment.placeholders()) + " path segment " + (i + 1) + " empty");
        }
        rendered = UriEncoding.dotSegment(rendered);
      }
      uri.append('/').append(rendered);
    }
    char separator = '?';
    for (Map.Entry<String, TextTemplate> parameter : query.entrySet()) {
      Optional<String> whole = parameter.getValue().wholePlaceholder();
      if (whole.isPresent() && values.get(whole.get()) instanceof List<?> list) {
        // a batch request's query list: the parameter once per key's value (?id=1&id=2)
        for (Object each : list) {
          uri.append(separator).append(UriEncoding.encode(parameter.getKey())).append('=');
          uri.append(UriEncoding.encode(ParamText.of(whole.get(), each)));
          separator = '&';
        }
        continue;
      }
      uri.append(separator).append(UriEncoding.encode(parameter.getKey())).append('=');
      uri.append(parameter.getValue().render(UriEncoding::encode, name -> UriEncoding.encode(ParamText.of(name, values.get(name)))));
      separator = '&';
    }
    List<Header> rendered = new ArrayList<>();
    for (Map.Entry<String, TextTemplate> header : headers.entrySet()) {
      String name = header.getKey();
      rendered.add(new Header(name, header.getValue().render(literal -> literal, param -> headerValue(name, param, values))));
    }
    try {
      return new Rendered(method, new URI(uri.toString()), rendered, body == null ? null : body.render(values));
    } catch (URISyntaxException e) {
      // every value is percent-encoded and the literal text was checked at start: a bug if reached
      throw new TemplateValueException("the request URI could not be built: " + e.getReason());
    }
  }

  private static String headerValue(String header, String param, Map<String, Object> values) throws TemplateValueException {
    String text = ParamText.of(param, values.get(param));
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == '\r' || c == '\n' || (c < 0x20 && c != '\t') || c == 0x7F) {
        throw new TemplateValueException(
            "parameter '" + param + "' cannot go into header '" + header
                + "': its value has a line break or another control character");
      }
      if (c > 0x7E) {
        throw new TemplateValueException(
            "parameter '" + param + "' cannot go into header '" + header
                + "': its value has a character outside ASCII (header values take printable ASCII only)");
      }
    }
    return text;
  }

  private static String describe(Set<String> names) {
    String quoted = "'" + String.join("', '", names) + "'";
    return names.size() == 1 ? "parameter " + quoted + " makes" : "parameters " + quoted + " make";
  }
}
