package io.refresher.source;

import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A named, parameterised query or HTTP request declared in configuration. Only these ever run: the
 * admin API names a source and supplies parameter values, never SQL and never a URL.
 *
 * @param datasource where the source's load goes, and the name its load bound is kept under: the
 *     datasource of a SQL source, the endpoint of an HTTP source (names are unique across both)
 * @param sql the query of a SQL source; null for an HTTP source
 * @param params parameter names in declaration order, with their types
 * @param timeout how long one run may take, the whole response read included
 * @param http the request of an HTTP source; null for a SQL source
 * @param versionSql a SQL source's cheap "has it changed?" query (a scalar over some of its
 *     parameters); null when it has none
 * @param changes the PostgreSQL channel whose notifications refresh this source's keys; null when
 *     none
 * @param batch a SQL source's batch form: many keys in one query; null when it has none
 */
public record SourceDefinition(
    String name,
    String datasource,
    String sql,
    Map<String, ParamType> params,
    ResultShape result,
    Duration timeout,
    HttpRequestSpec http,
    String versionSql,
    ChangeFeed changes,
    ValueTtl valueTtl,
    NotFound notFound,
    BatchForm batch) {

  public SourceDefinition {
    params = Collections.unmodifiableMap(new LinkedHashMap<>(params));
  }

  /** A source without a batch form. */
  public SourceDefinition(
      String name,
      String datasource,
      String sql,
      Map<String, ParamType> params,
      ResultShape result,
      Duration timeout,
      HttpRequestSpec http,
      String versionSql,
      ChangeFeed changes,
      ValueTtl valueTtl,
      NotFound notFound) {
    this(name, datasource, sql, params, result, timeout, http, versionSql, changes, valueTtl, notFound, null);
  }

  /** A source whose values take their registration's TTL. */
  public SourceDefinition(
      String name,
      String datasource,
      String sql,
      Map<String, ParamType> params,
      ResultShape result,
      Duration timeout,
      HttpRequestSpec http,
      String versionSql,
      ChangeFeed changes) {
    this(name, datasource, sql, params, result, timeout, http, versionSql, changes, null, null);
  }

  /** A SQL source without a version query or change feed. */
  public SourceDefinition(
      String name, String datasource, String sql, Map<String, ParamType> params, ResultShape result, Duration timeout) {
    this(name, datasource, sql, params, result, timeout, null, null, null);
  }

  public boolean isHttp() {
    return http != null;
  }
}
