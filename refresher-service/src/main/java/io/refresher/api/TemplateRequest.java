package io.refresher.api;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import java.time.Duration;
import java.util.Map;

/**
 * Body of {@code PUT /v1/templates/{name}}: {@code {"pattern": "product:{id}", "source":
 * "product-by-id", "params": {...}, "ttl": "PT10M"}}; {@code params} (the source's parameters that
 * the pattern does not supply) may be left out when there are none. Unknown fields are refused so
 * that a typo does not silently register something else.
 */
@JsonIgnoreProperties(ignoreUnknown = false)
public record TemplateRequest(String pattern, String source, Map<String, Object> params, @JsonDeserialize(using = IsoDuration.class) Duration ttl) {}
