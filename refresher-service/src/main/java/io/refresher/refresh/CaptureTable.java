package io.refresher.refresh;

import io.refresher.registry.KeyTemplate;
import io.refresher.registry.TemplatePattern;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * How the changes of one captured table name keys. Three ways, any of them together:
 *
 * <ul>
 *   <li>{@code sources}: every template of these sources whose placeholders are all columns of the
 *       row gives a key ({@code product:{id}} and a row with {@code id = 42} give {@code
 *       product:42}); the templates are read at each change, so templates registered at run time
 *       count at once;
 *   <li>{@code keys}: patterns of the same form, fixed in the configuration;
 *   <li>{@code keyColumn}: a column whose value is the key itself.
 * </ul>
 *
 * A placeholder is filled only from a value that can be part of a key ({@link
 * TemplatePattern#render}); a row that fills none names no key.
 *
 * @param table {@code schema.table}, as the log names it
 */
public record CaptureTable(String table, List<String> sources, List<TemplatePattern> keys, String keyColumn) {

  public CaptureTable {
    Objects.requireNonNull(table, "table");
    sources = List.copyOf(sources);
    keys = List.copyOf(keys);
  }

  /** The keys the row with these columns names, given the templates in force. */
  public Set<String> keysOf(Map<String, String> columns, List<KeyTemplate> templates) {
    Set<String> named = new LinkedHashSet<>();
    if (columns.isEmpty()) {
      return named;
    }
    if (keyColumn != null) {
      String key = columns.get(keyColumn);
      if (key != null && !key.isEmpty()) {
        named.add(key);
      }
    }
    for (TemplatePattern pattern : keys) {
      pattern.render(columns).ifPresent(named::add);
    }
    if (!sources.isEmpty()) {
      for (KeyTemplate template : templates) {
        if (sources.contains(template.source())) {
          template.pattern().render(columns).ifPresent(named::add);
        }
      }
    }
    return named;
  }
}
