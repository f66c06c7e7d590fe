package io.refresher.refresh;

import static org.assertj.core.api.Assertions.assertThat;

import io.refresher.registry.KeyTemplate;
import io.refresher.registry.TemplatePattern;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CaptureTableTest {

  private static KeyTemplate template(String name, String pattern, String source) {
    return new KeyTemplate(name, TemplatePattern.parse(pattern), source, Map.of(), Duration.ofHours(1), Instant.EPOCH, Instant.EPOCH);
  }

  @Test
  void keysOf_patternFilledFromColumns() {
    CaptureTable table = new CaptureTable("public.product", List.of(), List.of(TemplatePattern.parse("product:{id}")), null);

    assertThat(table.keysOf(Map.of("id", "42", "name", "lamp"), List.of())).containsExactly("product:42");
  }

  @Test
  void keysOf_sourcesTemplatesWhosePlaceholdersAreAllColumns() {
    CaptureTable table = new CaptureTable("public.product", List.of("product-by-id"), List.of(), null);
    List<KeyTemplate> templates =
        List.of(
            template("by-id", "product:{id}", "product-by-id"),
            template("by-id-and-locale", "product:{id}:{locale}", "product-by-id"),
            template("other-source", "item:{id}", "item"));

    assertThat(table.keysOf(Map.of("id", "7"), templates)).containsExactly("product:7");
  }

  @Test
  void keysOf_keyColumn_theColumnsValueIsTheKey() {
    CaptureTable table = new CaptureTable("public.setting", List.of(), List.of(), "cache_key");

    assertThat(table.keysOf(Map.of("cache_key", "settings:eu", "value", "x"), List.of())).containsExactly("settings:eu");
    assertThat(table.keysOf(Map.of("value", "x"), List.of())).as("no key column in the row").isEmpty();
  }

  @Test
  void keysOf_valueThatCannotBePartOfAKey_namesNone() {
    CaptureTable table = new CaptureTable("public.product", List.of(), List.of(TemplatePattern.parse("product:{id}")), null);

    assertThat(table.keysOf(Map.of("id", "a:b"), List.of())).isEmpty();
    assertThat(table.keysOf(Map.of(), List.of())).isEmpty();
  }
}
