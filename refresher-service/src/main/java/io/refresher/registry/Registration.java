package io.refresher.registry;

import java.time.Duration;
import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A key the service keeps fresh: which source computes it, with which parameters, and how long a
 * computed value counts as fresh.
 *
 * @param key the Redis key exactly as applications read it
 * @param params parameter values as validated JSON scalars, by name
 */
public record Registration(
    String key,
    String source,
    Map<String, Object> params,
    Duration ttl,
    Instant createdAt,
    Instant updatedAt) {

  public Registration {
    params = Collections.unmodifiableMap(new LinkedHashMap<>(params));
  }
}
