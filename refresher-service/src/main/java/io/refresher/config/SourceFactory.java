package io.refresher.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.util.Duration;
import io.dropwizard.validation.MaxDuration;
import io.dropwizard.validation.MinDuration;
import io.refresher.source.ParamType;
import io.refresher.source.ResultShape;
import io.refresher.source.SourceDefinition;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * One source in {@code config.yml}: a parameterised query with named parameters ({@code :id}), or
 * an HTTP request ({@code http:}, see {@link HttpSourceFactory}). Exactly one of {@code sql} and
 * {@code http} is set.
 *
 * <pre>
 * sources:
 *   product-by-id:
 *     datasource: default        # or the name of an entry under datasources:
 *     sql: SELECT id, name, price FROM product WHERE id = :id
 *     params: { id: long }       # string | long | double | boolean
 *     result: row                # rows | row | scalar
 *     timeout: 2s
 *     versionSql: SELECT updated_at FROM product WHERE id = :id   # optional: cheap revalidation
 *     changes: { channel: product_changed, payload: key }      # optional: refresh on NOTIFY
 *     valueTtl: { column: ttl_seconds, min: 30s, max: 1h }      # optional: the row sets its TTL
 *     notFound: { ttl: 30s }     # optional: no row stores the not-found marker for 30 s
 *     batch:                     # optional, one parameter: many keys in one query
 *       sql: SELECT id, name, price FROM product WHERE id = ANY(:id)
 *       keyColumn: id
 * </pre>
 */
public class SourceFactory {

  public static final String DEFAULT_DATASOURCE = "default";

  /** A SQL source's datasource; null means {@value #DEFAULT_DATASOURCE}. An HTTP source has none. */
  private String datasource;

  private String sql;

  @Valid private HttpSourceFactory http;

  private String versionSql;

  @Valid private ChangeFeedFactory changes;

  /** The values carry their own TTL (a column, {@code Cache-Control}), within bounds; none when null. */
  @Valid private ValueTtlFactory valueTtl;

  /** No row (or an HTTP "not found" status) stores the not-found marker with this TTL; none when null. */
  @Valid private NotFoundFactory notFound;

  @Valid private BatchFactory batch;

  @NotNull private Map<String, ParamType> params = new LinkedHashMap<>();

  /** A SQL source's result shape; null when not given ({@code rows}). An HTTP source has none. */
  private ResultShape result;

  @NotNull
  @MinDuration(value = 1, unit = TimeUnit.MILLISECONDS)
  @MaxDuration(value = 10, unit = TimeUnit.MINUTES)
  private Duration timeout = Duration.seconds(5);

  @JsonProperty
  public NotFoundFactory getNotFound() {
    return notFound;
  }

  @JsonProperty
  public void setNotFound(NotFoundFactory notFound) {
    this.notFound = notFound;
  }

  @JsonProperty
  public ValueTtlFactory getValueTtl() {
    return valueTtl;
  }

  @JsonProperty
  public void setValueTtl(ValueTtlFactory valueTtl) {
    this.valueTtl = valueTtl;
  }

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

  /** The result shape: as given, else {@code rows}. */
  @JsonProperty
  public ResultShape getResult() {
    return result == null ? ResultShape.ROWS : result;
  }

  /** Whether {@code result} was given (an HTTP source must not give one: see {@code http.pointer}). */
  public boolean resultGiven() {
    return result != null;
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

  @JsonProperty
  public HttpSourceFactory getHttp() {
    return http;
  }

  @JsonProperty
  public void setHttp(HttpSourceFactory http) {
    this.http = http;
  }

  @JsonProperty
  public String getVersionSql() {
    return versionSql;
  }

  @JsonProperty
  public void setVersionSql(String versionSql) {
    this.versionSql = versionSql;
  }

  @JsonProperty
  public BatchFactory getBatch() {
    return batch;
  }

  @JsonProperty
  public void setBatch(BatchFactory batch) {
    this.batch = batch;
  }

  @JsonProperty
  public ChangeFeedFactory getChanges() {
    return changes;
  }

  @JsonProperty
  public void setChanges(ChangeFeedFactory changes) {
    this.changes = changes;
  }

  /** The datasource a SQL source runs on: {@code default} unless named. */
  public String effectiveDatasource() {
    return datasource == null ? DEFAULT_DATASOURCE : datasource;
  }

  public SourceDefinition build(String name) {
    if (http != null) {
      return new SourceDefinition(
          name,
          http.getEndpoint(),
          null,
          params,
          getResult(),
          timeout.toJavaDuration(),
          http.build(),
          null,
          null,
          valueTtl == null ? null : valueTtl.build(),
          notFound == null ? null : notFound.build(true),
          batch == null ? null : batch.build());
    }
    return new SourceDefinition(
        name,
        effectiveDatasource(),
        sql,
        params,
        getResult(),
        timeout.toJavaDuration(),
        null,
        versionSql == null || versionSql.isBlank() ? null : versionSql,
        changes == null ? null : changes.build(),
        valueTtl == null ? null : valueTtl.build(),
        notFound == null ? null : notFound.build(false),
        batch == null ? null : batch.build());
  }
}
