package io.refresher.registry;

import java.time.Duration;
import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * A family of keys computed by one source: every key its pattern matches, with the pattern's
 * placeholders supplying some of the source's parameters and {@code params} the rest.
 *
 * @param name how operators address the template ({@code products})
 * @param params the fixed parameters (those not taken from the key), converted to their types
 * @param ttl how long a computed value counts as fresh, for every key of the family
 */
public record KeyTemplate(
    String name,
    TemplatePattern pattern,
    String source,
    Map<String, Object> params,
    Duration ttl,
    Instant createdAt,
    Instant updatedAt) {

  public KeyTemplate {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(pattern, "pattern");
    params = Collections.unmodifiableMap(new LinkedHashMap<>(params));
  }
}
