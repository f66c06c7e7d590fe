package io.refresher.client.admin;

import java.time.Duration;
import java.util.Map;
import java.util.Objects;

/**
 * What a key's registration says: its source, the source's parameters, the value's TTL and the
 * refresh policy ({@code hot}: kept fresh while read often; {@code always}: while registered).
 *
 * @param policy {@code hot} or {@code always}; null for the service's default ({@code hot})
 */
public record KeySpec(String source, Map<String, Object> params, Duration ttl, String policy) {

  public KeySpec {
    Objects.requireNonNull(source, "source");
    Objects.requireNonNull(ttl, "ttl");
    params = params == null ? Map.of() : Map.copyOf(params);
  }

  /** A key of policy {@code hot}. */
  public static KeySpec of(String source, Map<String, Object> params, Duration ttl) {
    return new KeySpec(source, params, ttl, null);
  }
}
