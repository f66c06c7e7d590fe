package io.refresher.api;

import io.refresher.registry.KeyTemplate;
import io.swagger.v3.oas.annotations.media.Schema;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/** A key template as JSON; {@code placeholders} lists the parameters each key supplies, in pattern order. */
public record TemplateView(
    String name,
    String pattern,
    List<String> placeholders,
    String source,
    @Schema(ref = OpenApiDocument.PARAM_VALUES) Map<String, Object> params,
    String ttl,
    Instant createdAt,
    Instant updatedAt) {

  static TemplateView of(KeyTemplate template) {
    return new TemplateView(
        template.name(),
        template.pattern().text(),
        List.copyOf(template.pattern().placeholders()),
        template.source(),
        template.params(),
        template.ttl().toString(),
        template.createdAt(),
        template.updatedAt());
  }
}
