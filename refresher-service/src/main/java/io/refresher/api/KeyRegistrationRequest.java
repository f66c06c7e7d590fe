package io.refresher.api;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import java.time.Duration;
import java.util.Map;

/**
 * Body of {@code PUT /v1/keys/{key}}: {@code {"source": "...", "params": {...}, "ttl": "PT5M",
 * "policy": "hot"}}; {@code policy} is optional ({@code hot} or {@code always}).
 * Unknown fields are refused so that a typo does not silently register something else.
 */
@JsonIgnoreProperties(ignoreUnknown = false)
public record KeyRegistrationRequest(String source, Map<String, Object> params, @JsonDeserialize(using = IsoDuration.class) Duration ttl, String policy) {}
