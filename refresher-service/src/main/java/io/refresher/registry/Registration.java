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
 * @param generation which version of the registration this is: every registration and every
 *     replacement of one gets a larger number (0 for keys derived from a template). Writes carry it,
 *     so that a refresh still running when its registration was deleted cannot write afterwards.
 */
public record Registration(
    String key,
    String source,
    Map<String, Object> params,
    Duration ttl,
    Instant createdAt,
    Instant updatedAt,
    RefreshPolicy policy,
    String template,
    long generation) {

  public Registration {
    params = Collections.unmodifiableMap(new LinkedHashMap<>(params));
    Objects.requireNonNull(policy, "policy");
  }

  /** A registration without a generation (derived from a template, or not stored yet). */
  public Registration(
      String key,
      String source,
      Map<String, Object> params,
      Duration ttl,
      Instant createdAt,
      Instant updatedAt,
      RefreshPolicy policy,
      String template) {
    this(key, source, params, ttl, createdAt, updatedAt, policy, template, 0);
  }

  /** A key registered by itself (not derived from a template), not stored yet. */
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

  /** This registration as stored under the given generation. */
  public Registration withGeneration(long stored) {
    return new Registration(key, source, params, ttl, createdAt, updatedAt, policy, template, stored);
  }

  public boolean fromTemplate() {
    return template != null;
  }
}
