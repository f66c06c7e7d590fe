package io.refresher.api;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import io.swagger.v3.oas.annotations.extensions.Extension;
import io.swagger.v3.oas.annotations.extensions.ExtensionProperty;
import io.swagger.v3.oas.annotations.media.Schema;
import java.time.Duration;
import java.util.Map;

/**
 * Body of {@code PUT /v1/templates/{name}}: {@code {"pattern": "product:{id}", "source":
 * "product-by-id", "params": {...}, "ttl": "PT10M"}}; {@code params} (the source's parameters that
 * the pattern does not supply) may be left out when there are none. Unknown fields are refused so
 * that a typo does not silently register something else.
 */
@JsonIgnoreProperties(ignoreUnknown = false)
@Schema(
    description = "A key template. Unknown fields and fields given twice are refused (400).",
    additionalProperties = Schema.AdditionalPropertiesValue.FALSE)
public record TemplateRequest(
    @Schema(
            description =
                "Literal text with placeholders {name}, each a parameter of the source; '{{' and '}}' are "
                    + "literal braces. A placeholder matches one or more characters other than ':', '/', '{' "
                    + "and '}'. The same text rules as a key (512 UTF-8 bytes, no control characters, not "
                    + "under 'refresher:'), at least one placeholder, and no other template with the same pattern.",
            requiredMode = Schema.RequiredMode.REQUIRED,
            minLength = 1,
            example = "product:{id}",
            extensions =
                @Extension(
                    properties =
                        @ExtensionProperty(
                            name = OpenApiRules.MAX_UTF8_BYTES_EXTENSION,
                            value = OpenApiRules.KEY_MAX_UTF8_BYTES_TEXT,
                            parseValue = true)))
        String pattern,
    @Schema(
            description = "The name of a configured source (GET /v1/sources); its parameters that the pattern does not supply go in params, the others must not.",
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
            example = "PT10M",
            extensions =
                @Extension(
                    properties = {
                      @ExtensionProperty(name = OpenApiRules.MIN_DURATION_EXTENSION, value = OpenApiRules.TTL_MIN),
                      @ExtensionProperty(name = OpenApiRules.MAX_DURATION_EXTENSION, value = OpenApiRules.TTL_MAX)
                    }))
        @JsonDeserialize(using = IsoDuration.class)
        Duration ttl) {}
