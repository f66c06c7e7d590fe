package io.refresher.client.admin;

import java.time.Duration;
import java.util.Map;
import java.util.Objects;

/**
 * What a template says: the pattern of the keys it covers ({@code product:{id}}), their source,
 * the parameters the pattern does not give, and their TTL.
 */
public record TemplateSpec(String pattern, String source, Map<String, Object> params, Duration ttl) {

  public TemplateSpec {
    Objects.requireNonNull(pattern, "pattern");
    Objects.requireNonNull(source, "source");
    Objects.requireNonNull(ttl, "ttl");
    params = params == null ? Map.of() : Map.copyOf(params);
  }
}
