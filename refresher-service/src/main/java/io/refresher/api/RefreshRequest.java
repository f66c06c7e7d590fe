package io.refresher.api;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import io.swagger.v3.oas.annotations.media.Schema;
import java.util.List;
import java.util.Map;

/**
 * Body of {@code POST /v1/refresh}: exactly one of {@code keys}, {@code template} with {@code
 * params}, or {@code prefix} (with {@code after} and {@code limit} to page). Unknown fields are
 * refused so that a typo does not silently refresh something else.
 */
@JsonIgnoreProperties(ignoreUnknown = false)
@Schema(
    description =
        "What to refresh now: exactly one of 'keys', 'template' (with 'params') or 'prefix' (with 'after' and 'limit'). "
            + "Unknown fields and fields given twice are refused (400).",
    additionalProperties = Schema.AdditionalPropertiesValue.FALSE)
public record RefreshRequest(
    @Schema(description = "Keys to refresh, at most " + RefreshResource.MAX_KEYS + "; duplicates are refreshed once.")
        List<String> keys,
    @Schema(description = "The name of a template; each object of 'params' gives its placeholders' values and names one key.")
        String template,
    @Schema(description = "With 'template': one object per key, placeholder name to value, at most " + RefreshResource.MAX_KEYS + ".")
        List<Map<String, Object>> params,
    @Schema(description = "Refresh the registered keys that start with this text (keys a template covers are not listed in the registry: name them with 'keys' or 'template').", minLength = 1)
        String prefix,
    @Schema(description = "With 'prefix': start after this key (the 'next' of the previous answer).")
        String after,
    @Schema(description = "With 'prefix': most keys in this page, 1 to " + RefreshResource.MAX_KEYS + " (default 100).", minimum = "1", maximum = "" + RefreshResource.MAX_KEYS)
        Integer limit) {}
