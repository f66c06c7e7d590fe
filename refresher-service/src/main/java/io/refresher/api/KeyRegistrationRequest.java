package io.refresher.api;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import io.swagger.v3.oas.annotations.extensions.Extension;
import io.swagger.v3.oas.annotations.extensions.ExtensionProperty;
import io.swagger.v3.oas.annotations.media.Schema;
import java.time.Duration;
import java.util.Map;

/**
 * Body of {@code PUT /v1/keys/{key}}: {@code {"source": "...", "params": {...}, "ttl": "PT5M",
 * "policy": "hot"}}; {@code policy} is optional ({@code hot} or {@code always}).
 * Unknown fields are refused so that a typo does not silently register something else.
 */
@JsonIgnoreProperties(ignoreUnknown = false)
@Schema(
    description = "A key registration. Unknown fields and fields given twice are refused (400).",
    additionalProperties = Schema.AdditionalPropertiesValue.FALSE)
public record KeyRegistrationRequest(
    @Schema(
            description = "The name of a configured source (GET /v1/sources).",
            requiredMode = Schema.RequiredMode.REQUIRED,
            minLength = 1)
        String source,
    @Schema(ref = OpenApiDocument.PARAM_VALUES)
        Map<String, Object> params,
    @Schema(
            description = OpenApiRules.TTL_DESCRIPTION,
            requiredMode = Schema.RequiredMode.REQUIRED,
            type = "string",
            format = "duration",
            pattern = OpenApiRules.TTL_PATTERN,
            example = "PT5M",
            extensions =
                @Extension(
                    properties = {
                      @ExtensionProperty(name = OpenApiRules.MIN_DURATION_EXTENSION, value = OpenApiRules.TTL_MIN),
                      @ExtensionProperty(name = OpenApiRules.MAX_DURATION_EXTENSION, value = OpenApiRules.TTL_MAX)
                    }))
        @JsonDeserialize(using = IsoDuration.class)
        Duration ttl,
    @Schema(
            description =
                "When the key is kept fresh: 'hot' (while read often, and for access.coldAfter after "
                    + "registering) or 'always' (as long as it is registered). Absent or null: 'hot'.",
            allowableValues = {"hot", "always"},
            defaultValue = "hot",
            nullable = true)
        String policy) {}
