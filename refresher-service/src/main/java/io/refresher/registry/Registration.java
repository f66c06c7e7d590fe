package io.refresher.registry;

import java.time.Duration;
import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * A key the service knows how to compute: which source computes it, with which parameters, how
 * long a computed value counts as fresh, and when it is kept fresh.
 *
 * @param key the Redis key exactly as applications read it
 * @param params parameter values as validated JSON scalars, by name
 * @param policy when the key is refreshed
 * @param template the template the key was derived from, or null for a key registered by itself
 */
public record Registration(
    String key,
    String source,
    Map<String, Object> params,
    Duration ttl,
    Instant createdAt,
    Instant updatedAt,
    RefreshPolicy policy,
    String template) {

  public Registration {
    params = Collections.unmodifiableMap(new LinkedHashMap<>(params));
    Objects.requireNonNull(policy, "policy");
  }

  /** A key registered by itself (not derived from a template). */
  public static Registration of(
      String key,
      String source,
      Map<String, Object> params,
      Duration ttl,
      Instant createdAt,
      Instant updatedAt,
      RefreshPolicy policy) {
    return new Registration(key, source, params, ttl, createdAt, updatedAt, policy, null);
  }

  public boolean fromTemplate() {
    return template != null;
  }
}
