package io.refresher.config;

import com.fasterxml.jackson.databind.JsonNode;
import io.refresher.http.TextTemplate;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * The rules of an HTTP source's request, and of an endpoint, that need more than annotations: the
 * method, the path and its placeholders, the query, headers and body templates, the accepted
 * statuses and the JSON Pointer; an endpoint's base URL, CA file and default headers. Called by
 * {@link WiredSourcesValidator}, which reports each violation under its path, so that a broken
 * source stops the service at start, naming the field and the rule, instead of failing at every
 * refresh. The placeholder syntax is the HTTP adapter's own parser ({@link TextTemplate}): what
 * passes here is what the adapter renders.
 */
final class HttpSourceValidation {

  /** One broken rule: the configuration path ({@code sources.x.http.path}) and what it must be. */
  record Violation(String path, String rule) {}

  /** RFC 9110 token characters: what a header name is made of. */
  private static final Pattern TOKEN = Pattern.compile("[!#$%&'*+.^_`|~0-9A-Za-z-]+");

  /** Headers the client sets from the request itself; a configured one would contradict it. */
  private static final Set<String> CLIENT_HEADERS = Set.of("host", "content-length", "transfer-encoding", "connection");

  /** Characters a path's literal text may hold as they are (RFC 3986 pchar and "/", besides %HH). */
  private static final String PATH_CHARACTERS =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~!$&'()*+,;=:@/";

  private HttpSourceValidation() {}

  /**
   * @param path the source's {@code http} block's path, e.g. {@code sources.product.http}
   * @param params the source's declared parameter names
   */
  static List<Violation> check(String path, HttpSourceFactory http, Set<String> params) {
    List<Violation> violations = new ArrayList<>();
    Set<String> used = new LinkedHashSet<>();
    String method = http.getMethod() == null ? null : http.getMethod().trim().toUpperCase(Locale.ROOT);
    if (method != null && !method.isEmpty() && !method.equals("GET") && !method.equals("POST")) {
      violations.add(new Violation(path + ".method", "must be GET or POST"));
    }
    if (http.getBody() != null && !http.getBody().isNull() && !"POST".equals(method)) {
      violations.add(new Violation(path + ".body", "is only sent with method POST"));
    }
    if (http.getPath() != null && !http.getPath().isBlank()) {
      checkPath(path + ".path", http.getPath(), params, used, violations);
    }
    if (http.getQuery() != null) {
      for (Map.Entry<String, String> entry : http.getQuery().entrySet()) {
        String where = path + ".query." + entry.getKey();
        if (entry.getKey() == null || entry.getKey().isBlank()) {
          violations.add(new Violation(path + ".query", "must not have a blank parameter name"));
        } else if (entry.getValue() == null) {
          violations.add(new Violation(where, "must have a value (\"\" for an empty one)"));
        } else {
          template(where, entry.getValue(), params, used, violations);
        }
      }
    }
    if (http.getHeaders() != null) {
      for (Map.Entry<String, String> entry : http.getHeaders().entrySet()) {
        String where = path + ".headers." + entry.getKey();
        if (!headerName(where, entry.getKey(), violations)) {
          continue;
        }
        if (entry.getValue() == null) {
          violations.add(new Violation(where, "must have a value"));
          continue;
        }
        TextTemplate value = template(where, entry.getValue(), params, used, violations);
        if (value != null && !value.literals().stream().allMatch(HttpSourceValidation::printableAscii)) {
          violations.add(new Violation(where, "must be printable ASCII (no line breaks or control characters)"));
        }
      }
    }
    if (http.getBody() != null && !http.getBody().isNull()) {
      body(path + ".body", http.getBody(), params, used, violations);
    }
    Set<String> unused = new TreeSet<>(params);
    unused.removeAll(used);
    if (!unused.isEmpty()) {
      String source = path.endsWith(".http") ? path.substring(0, path.length() - ".http".length()) : path;
      violations.add(
          new Violation(
              source + ".params",
              "declares " + unused + ", which the request never uses (as {name} in its path, query, headers or body)"));
    }
    if (http.getAcceptStatus() != null) {
      for (Integer status : new TreeSet<>(http.getAcceptStatus().stream().map(s -> s == null ? -1 : s).toList())) {
        if (status < 100 || status > 599) {
          violations.add(new Violation(path + ".acceptStatus", "must hold HTTP statuses from 100 to 599 (it has " + status + ")"));
        } else if (status == 304) {
          violations.add(
              new Violation(path + ".acceptStatus", "must not hold 304: a 304 answers a revalidation and extends the stored value"));
        }
      }
    }
    if (http.getPointer() != null && !http.getPointer().isEmpty()) {
      pointer(path + ".pointer", http.getPointer(), violations);
    }
    return violations;
  }

  private static void checkPath(String where, String text, Set<String> params, Set<String> used, List<Violation> violations) {
    if (!text.startsWith("/")) {
      violations.add(new Violation(where, "must start with /"));
      return;
    }
    if (text.indexOf('?') >= 0 || text.indexOf('#') >= 0) {
      violations.add(new Violation(where, "must not hold ? or #: query parameters go under query"));
      return;
    }
    TextTemplate whole = template(where, text, params, used, violations);
    if (whole == null) {
      return;
    }
    for (String segment : text.substring(1).split("/", -1)) {
      if (segment.equals(".") || segment.equals("..")) {
        violations.add(new Violation(where, "must not have . or .. segments"));
        return;
      }
    }
    for (String literal : whole.literals()) {
      String broken = brokenPathText(literal);
      if (broken != null) {
        violations.add(new Violation(where, broken));
        return;
      }
    }
  }

  /** What is wrong with a path's literal text, or null: it is sent as it is, so it must be URI path syntax. */
  private static String brokenPathText(String literal) {
    for (int i = 0; i < literal.length(); i++) {
      char c = literal.charAt(i);
      if (c == '%') {
        if (i + 2 >= literal.length() || !hex(literal.charAt(i + 1)) || !hex(literal.charAt(i + 2))) {
          return "must write % only as the start of an escape such as %20";
        }
        i += 2;
      } else if (PATH_CHARACTERS.indexOf(c) < 0) {
        return "must be URI path text: '" + (Character.isISOControl(c) || c == ' ' ? String.format("U+%04X", (int) c) : c)
            + "' must be percent-encoded";
      }
    }
    return null;
  }

  private static boolean hex(char c) {
    return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'F') || (c >= 'a' && c <= 'f');
  }

  /** Parses one template, reporting broken syntax and undeclared parameters; null when it does not parse. */
  private static TextTemplate template(
      String where, String text, Set<String> params, Set<String> used, List<Violation> violations) {
    TextTemplate template;
    try {
      template = TextTemplate.parse(text);
    } catch (IllegalArgumentException e) {
      violations.add(new Violation(where, e.getMessage()));
      return null;
    }
    for (String name : template.placeholders()) {
      if (!params.contains(name)) {
        violations.add(
            new Violation(where, "uses {" + name + "}, which is not a declared parameter (params: " + new TreeSet<>(params) + ")"));
      }
    }
    used.addAll(template.placeholders());
    return template;
  }

  private static void body(String where, JsonNode node, Set<String> params, Set<String> used, List<Violation> violations) {
    if (node.isTextual()) {
      template(where, node.textValue(), params, used, violations);
    } else if (node.isObject()) {
      for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> field = it.next();
        body(where + "." + field.getKey(), field.getValue(), params, used, violations);
      }
    } else if (node.isArray()) {
      for (int i = 0; i < node.size(); i++) {
        body(where + "[" + i + "]", node.get(i), params, used, violations);
      }
    }
  }

  private static void pointer(String where, String pointer, List<Violation> violations) {
    if (!pointer.startsWith("/")) {
      violations.add(new Violation(where, "must be a JSON Pointer: empty, or starting with / (such as /data/items/0)"));
      return;
    }
    for (int i = 0; i < pointer.length(); i++) {
      if (pointer.charAt(i) == '~'
          && (i + 1 >= pointer.length() || (pointer.charAt(i + 1) != '0' && pointer.charAt(i + 1) != '1'))) {
        violations.add(new Violation(where, "must be a JSON Pointer: ~ must be followed by 0 or 1 (~0 is ~, ~1 is /)"));
        return;
      }
    }
  }

  private static boolean headerName(String where, String name, List<Violation> violations) {
    if (name == null || !TOKEN.matcher(name).matches()) {
      violations.add(new Violation(where, "is not a valid header name (letters, digits and !#$%&'*+.^_`|~-)"));
      return false;
    }
    if (CLIENT_HEADERS.contains(name.toLowerCase(Locale.ROOT))) {
      violations.add(new Violation(where, "is set by the HTTP client from the request itself; it cannot be configured"));
      return false;
    }
    if (name.equalsIgnoreCase("Accept-Encoding")) {
      violations.add(new Violation(where, "cannot be configured: a body is read and stored as sent, never decompressed"));
      return false;
    }
    return true;
  }

  private static boolean printableAscii(String text) {
    return text.chars().allMatch(c -> (c >= 0x20 && c <= 0x7E) || c == '\t');
  }

  /** Endpoint names become part of metric names ({@code refresher.http.<endpoint>.requests}). */
  private static final Pattern ENDPOINT_NAME = Pattern.compile("[a-z0-9][a-z0-9_-]{0,63}");

  /**
   * An endpoint's rules: its name, its base URL (http or https, a host, no user-info, query or
   * fragment: a source's path and query are appended to it), its CA file (https only, readable),
   * its default headers (valid names; values of printable ASCII, which are never shown in a
   * message: they may be tokens).
   *
   * @param path {@code httpEndpoints.<name>}
   */
  static List<Violation> checkEndpoint(String path, String name, HttpEndpointFactory endpoint) {
    List<Violation> violations = new ArrayList<>();
    if (!ENDPOINT_NAME.matcher(name).matches()) {
      violations.add(new Violation(path, "name must match [a-z0-9][a-z0-9_-]{0,63} (it is part of metric names)"));
    }
    String baseUrl = endpoint.getBaseUrl();
    String scheme = null;
    if (baseUrl != null && !baseUrl.isBlank()) {
      String broken = brokenBaseUrl(baseUrl);
      if (broken != null) {
        violations.add(new Violation(path + ".baseUrl", broken));
      } else {
        scheme = URI.create(baseUrl).getScheme().toLowerCase(Locale.ROOT);
      }
    }
    if (endpoint.getCaCertificate() != null) {
      if ("http".equals(scheme)) {
        violations.add(new Violation(path + ".caCertificate", "needs an https baseUrl"));
      }
      if (!Files.isReadable(Path.of(endpoint.getCaCertificate()))) {
        violations.add(new Violation(path + ".caCertificate", "must name a readable PEM file"));
      }
    }
    if (endpoint.getHeaders() != null) {
      for (Map.Entry<String, String> header : endpoint.getHeaders().entrySet()) {
        String where = path + ".headers." + header.getKey();
        if (!headerName(where, header.getKey(), violations)) {
          continue;
        }
        if (header.getValue() == null || !printableAscii(header.getValue())) {
          violations.add(new Violation(where, "must be a value of printable ASCII (no line breaks or control characters)"));
        }
      }
    }
    return violations;
  }

  private static String brokenBaseUrl(String baseUrl) {
    URI uri;
    try {
      uri = new URI(baseUrl);
    } catch (URISyntaxException e) {
      return "must be a URL such as https://catalog.internal:8443/api (" + e.getReason() + " at index " + e.getIndex() + ")";
    }
    String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
    if (!scheme.equals("http") && !scheme.equals("https")) {
      return "must be an http:// or https:// URL";
    }
    if (uri.getRawUserInfo() != null) {
      return "must not hold user-info (user:password@): credentials go in headers";
    }
    if (uri.getHost() == null) {
      return "must name a host (such as https://catalog.internal:8443/api)";
    }
    if (uri.getRawQuery() != null || uri.getRawFragment() != null) {
      return "must not have a query or fragment: a source's path and query are appended to it";
    }
    return null;
  }
}
