package io.refresher.source;

import java.util.LinkedHashMap;
import java.util.Collections;
import java.time.Duration;
import java.util.Map;

/**
 * A named, parameterised query declared in configuration. Only these queries ever run: the admin
 * API names a source and supplies parameter values, never SQL.
 *
 * @param params parameter names in declaration order, with their types
 */
public record SourceDefinition(
    String name,
    String datasource,
    String sql,
    Map<String, ParamType> params,
    ResultShape result,
    Duration timeout) {

  public SourceDefinition {
    params = Collections.unmodifiableMap(new LinkedHashMap<>(params));
  }
}
