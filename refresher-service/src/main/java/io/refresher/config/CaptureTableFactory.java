package io.refresher.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.validation.ValidationMethod;
import io.refresher.refresh.CaptureTable;
import io.refresher.registry.TemplatePattern;
import jakarta.validation.constraints.NotNull;
import java.util.ArrayList;
import java.util.List;

/**
 * How the changes of one captured table name keys ({@link CaptureTable}): the templates of some
 * sources, fixed key patterns, or a column holding the key.
 */
public class CaptureTableFactory {

  @NotNull @JsonProperty private List<String> sources = new ArrayList<>();

  @NotNull @JsonProperty private List<String> keys = new ArrayList<>();

  @JsonProperty private String keyColumn;

  public List<String> getSources() {
    return sources;
  }

  public void setSources(List<String> sources) {
    this.sources = sources;
  }

  public List<String> getKeys() {
    return keys;
  }

  public void setKeys(List<String> keys) {
    this.keys = keys;
  }

  public String getKeyColumn() {
    return keyColumn;
  }

  public void setKeyColumn(String keyColumn) {
    this.keyColumn = keyColumn;
  }

  @ValidationMethod(message = "must name keys: sources, keys or keyColumn")
  public boolean isNamingKeys() {
    return !sources.isEmpty() || !keys.isEmpty() || (keyColumn != null && !keyColumn.isBlank());
  }

  @ValidationMethod(message = "keys must be key patterns such as product:{id} (literal text and {column} placeholders)")
  public boolean isKeysValid() {
    return keys.stream().allMatch(key -> key != null && TemplatePattern.check(key).errors().isEmpty());
  }

  public CaptureTable build(String table) {
    return new CaptureTable(
        CaptureFactory.qualified(table),
        sources,
        keys.stream().map(TemplatePattern::parse).toList(),
        keyColumn == null || keyColumn.isBlank() ? null : keyColumn);
  }
}
