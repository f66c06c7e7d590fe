package io.refresher.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.util.Duration;
import io.dropwizard.validation.MaxDuration;
import io.dropwizard.validation.MinDuration;
import io.refresher.source.ParamType;
import io.refresher.source.ResultShape;
import io.refresher.source.SourceDefinition;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotNull;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * One source in {@code config.yml}: a parameterised query with named parameters ({@code :id}).
 *
 * <pre>
 * sources:
 *   product-by-id:
 *     datasource: default        # or the name of an entry under datasources:
 *     sql: SELECT id, name, price FROM product WHERE id = :id
 *     params: { id: long }       # string | long | double | boolean
 *     result: row                # rows | row | scalar
 *     timeout: 2s
 * </pre>
 */
public class SourceFactory {

  public static final String DEFAULT_DATASOURCE = "default";

  @NotBlank private String datasource = DEFAULT_DATASOURCE;

  @NotBlank private String sql;

  @NotNull private Map<String, ParamType> params = new LinkedHashMap<>();

  @NotNull private ResultShape result = ResultShape.ROWS;

  @NotNull
  @MinDuration(value = 1, unit = TimeUnit.MILLISECONDS)
  @MaxDuration(value = 10, unit = TimeUnit.MINUTES)
  private Duration timeout = Duration.seconds(5);

  @JsonProperty
  public String getDatasource() {
    return datasource;
  }

  @JsonProperty
  public void setDatasource(String datasource) {
    this.datasource = datasource;
  }

  @JsonProperty
  public String getSql() {
    return sql;
  }

  @JsonProperty
  public void setSql(String sql) {
    this.sql = sql;
  }

  @JsonProperty
  public Map<String, ParamType> getParams() {
    return params;
  }

  @JsonProperty
  public void setParams(Map<String, ParamType> params) {
    this.params = params;
  }

  @JsonProperty
  public ResultShape getResult() {
    return result;
  }

  @JsonProperty
  public void setResult(ResultShape result) {
    this.result = result;
  }

  @JsonProperty
  public Duration getTimeout() {
    return timeout;
  }

  @JsonProperty
  public void setTimeout(Duration timeout) {
    this.timeout = timeout;
  }

  public SourceDefinition build(String name) {
    return new SourceDefinition(name, datasource, sql, params, result, timeout.toJavaDuration());
  }
}
