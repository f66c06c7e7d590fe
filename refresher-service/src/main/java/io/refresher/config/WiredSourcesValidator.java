package io.refresher.config;

import jakarta.validation.ConstraintValidator;
import jakarta.validation.ConstraintValidatorContext;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import org.jdbi.v3.core.statement.ColonPrefixSqlParser;
import org.jdbi.v3.core.statement.ParsedParameters;

/** Reports each miswired source under its own path, e.g. {@code sources.product-by-id.params}. */
public final class WiredSourcesValidator implements ConstraintValidator<WiredSources, RefresherConfiguration> {

  private static final Pattern SOURCE_NAME = Pattern.compile("[a-z0-9][a-z0-9._-]{0,63}");

  @Override
  public boolean isValid(RefresherConfiguration config, ConstraintValidatorContext context) {
    if (config.getSources() == null || config.getDatasources() == null) {
      return true;
    }
    context.disableDefaultConstraintViolation();
    boolean valid = true;
    if (config.getDatasources().containsKey(SourceFactory.DEFAULT_DATASOURCE)) {
      valid = violation(context, "datasources.default", "is reserved for the service's own database (database:)");
    }
    Map<String, HttpEndpointFactory> endpoints =
        config.getHttpEndpoints() == null ? Map.of() : config.getHttpEndpoints();
    for (Map.Entry<String, HttpEndpointFactory> entry : endpoints.entrySet()) {
      String endpoint = entry.getKey();
      if (SourceFactory.DEFAULT_DATASOURCE.equals(endpoint) || config.getDatasources().containsKey(endpoint)) {
        // one namespace: the load bound of each is kept under its name
        valid = violation(context, "httpEndpoints." + endpoint, "must not share its name with a datasource");
      }
      if (entry.getValue() != null) {
        for (HttpSourceValidation.Violation broken :
            HttpSourceValidation.checkEndpoint("httpEndpoints." + endpoint, endpoint, entry.getValue())) {
          valid = violation(context, broken.path(), broken.rule());
        }
      }
    }
    ColonPrefixSqlParser parser = new ColonPrefixSqlParser();
    for (Map.Entry<String, SourceFactory> entry : config.getSources().entrySet()) {
      String path = "sources." + entry.getKey();
      SourceFactory source = entry.getValue();
      if (!SOURCE_NAME.matcher(entry.getKey()).matches()) {
        valid = violation(context, path, "name must match [a-z0-9][a-z0-9._-]{0,63}");
      }
      if (source == null) {
        continue;
      }
      if ((source.getSql() == null) == (source.getHttp() == null)) {
        valid = violation(context, path, "must have exactly one of sql (a query) and http (a request)");
        continue;
      }
      if (source.getHttp() != null) {
        valid &= validHttpSource(context, path, source, endpoints);
        continue;
      }
      if (source.getSql().isBlank()) {
        valid = violation(context, path + ".sql", "must not be blank");
        continue;
      }
      String datasource = source.getDatasource();
      if (datasource != null
          && !SourceFactory.DEFAULT_DATASOURCE.equals(datasource)
          && !config.getDatasources().containsKey(datasource)) {
        valid =
            violation(
                context,
                path + ".datasource",
                "must be 'default' or one of " + new TreeSet<>(config.getDatasources().keySet()));
      }
      DatabaseFactory pool =
          datasource == null || SourceFactory.DEFAULT_DATASOURCE.equals(datasource)
              ? config.getDatabase()
              : config.getDatasources().get(datasource);
      if (pool != null
          && pool.getSocketTimeout() != null
          && source.getTimeout() != null
          && source.getTimeout().toMilliseconds() >= pool.getSocketTimeout().toMilliseconds()) {
        // The socket timeout would end the query first, breaking the connection, and the source's
        // own timeout would never apply.
        valid =
            violation(
                context,
                path + ".timeout",
                "must be below its datasource's socketTimeout (" + pool.getSocketTimeout() + ")");
      }
      if (source.getSql() == null || source.getParams() == null) {
        continue;
      }
      ParsedParameters parameters = parser.parse(source.getSql(), null).getParameters();
      if (parameters.isPositional() && parameters.getParameterCount() > 0) {
        valid = violation(context, path + ".sql", "must use :named parameters, not ?");
        continue;
      }
      Set<String> used = new TreeSet<>(parameters.getParameterNames());
      Set<String> declared = new TreeSet<>(source.getParams().keySet());
      if (!used.equals(declared)) {
        valid =
            violation(
                context,
                path + ".params",
                "must declare exactly the parameters the sql uses: sql uses " + used + ", params declares " + declared);
      }
      if (source.getVersionSql() != null && !source.getVersionSql().isBlank()) {
        ParsedParameters versionParameters = parser.parse(source.getVersionSql(), null).getParameters();
        Set<String> versionUses = new TreeSet<>(versionParameters.getParameterNames());
        if (versionParameters.isPositional() && versionParameters.getParameterCount() > 0) {
          valid = violation(context, path + ".versionSql", "must use :named parameters, not ?");
        } else if (!declared.containsAll(versionUses)) {
          versionUses.removeAll(declared);
          valid =
              violation(
                  context,
                  path + ".versionSql",
                  "may only use the source's own parameters " + declared + "; it also uses " + versionUses);
        }
      }
      if (source.getNotFound() != null) {
        if (source.getResult() == io.refresher.source.ResultShape.ROWS) {
          valid = violation(context, path + ".notFound", "needs result row or scalar (rows answers an empty array, a value)");
        }
        if (source.getNotFound().getHttpStatus() != null) {
          valid = violation(context, path + ".notFound.httpStatus", "is for HTTP sources; a SQL source's not found is no row");
        }
      }
      ValueTtlFactory valueTtl = source.getValueTtl();
      if (valueTtl != null) {
        if (valueTtl.getColumn() == null) {
          valid = violation(context, path + ".valueTtl.column", "must name the column holding the TTL in seconds (a SQL source)");
        } else if (source.getResult() == io.refresher.source.ResultShape.ROWS) {
          valid = violation(context, path + ".valueTtl.column", "needs result row or scalar (one row, whose column sets the TTL)");
        }
        if (valueTtl.isCacheControl()) {
          valid = violation(context, path + ".valueTtl.cacheControl", "is for HTTP sources (the response's Cache-Control)");
        }
      }
      if (source.getBatch() != null) {
        valid &= validBatch(context, path + ".batch", source, declared, pool);
      }
      if (source.getChanges() != null && pool != null && pool.getUrl() != null
          && !pool.getUrl().startsWith("jdbc:postgresql:")) {
        valid = violation(context, path + ".changes", "needs a PostgreSQL datasource (LISTEN/NOTIFY)");
      }
    }
    for (SourceLeaseCheck.Violation broken : SourceLeaseCheck.check(config)) {
      valid = violation(context, broken.path(), broken.rule());
    }
    return valid;
  }

  /** A SQL source's batch form: one parameter, bound as an array, and a column naming each row's key. */
  private static boolean validBatch(
      ConstraintValidatorContext context, String path, SourceFactory source, Set<String> declared, DatabaseFactory pool) {
    BatchFactory batch = source.getBatch();
    boolean valid = true;
    if (declared.size() != 1) {
      valid = violation(context, path, "needs a source with exactly one parameter (its values are bound as one array); it declares " + declared);
    }
    if (source.getResult() == io.refresher.source.ResultShape.ROWS) {
      valid = violation(context, path, "needs result row or scalar (a row per key)");
    }
    if (source.getVersionSql() != null && !source.getVersionSql().isBlank()) {
      valid = violation(context, path, "cannot be combined with versionSql: a batch recomputes its keys in one query, which costs less than a version query per key");
    }
    if (pool != null && pool.getUrl() != null && !pool.getUrl().startsWith("jdbc:postgresql:")) {
      valid = violation(context, path, "needs a PostgreSQL datasource (the parameter is bound as a PostgreSQL array)");
    }
    if (batch.getHttp() != null || batch.getItemId() != null || batch.getItemValue() != null) {
      valid = violation(context, path, "of a SQL source takes sql and keyColumn (http, itemId and itemValue are an HTTP source's)");
    }
    if (batch.getSql() == null || batch.getSql().isBlank()) {
      return violation(context, path + ".sql", "must not be blank");
    }
    if (batch.getKeyColumn() == null || batch.getKeyColumn().isBlank()) {
      valid = violation(context, path + ".keyColumn", "must name the column that holds the parameter value a row belongs to");
    }
    ParsedParameters parameters = new ColonPrefixSqlParser().parse(batch.getSql(), null).getParameters();
    if (parameters.isPositional() && parameters.getParameterCount() > 0) {
      return violation(context, path + ".sql", "must use :named parameters, not ?");
    }
    Set<String> used = new TreeSet<>(parameters.getParameterNames());
    if (!used.equals(declared)) {
      valid = violation(context, path + ".sql", "must use exactly the source's parameter " + declared + " (bound as an array, e.g. = ANY(:name)); it uses " + used);
    }
    return valid;
  }

  /**
   * An HTTP source's batch form: a POST to the source's endpoint whose JSON body holds the one
   * parameter as a whole value (sent as an array), a pointer to the response's items, and the id
   * within an item.
   */
  private static boolean validHttpBatch(
      ConstraintValidatorContext context, String path, SourceFactory source, HttpSourceFactory single, Map<String, HttpEndpointFactory> endpoints) {
    BatchFactory batch = source.getBatch();
    boolean valid = true;
    Set<String> declared = source.getParams() == null ? Set.of() : new TreeSet<>(source.getParams().keySet());
    if (declared.size() != 1) {
      valid = violation(context, path, "needs a source with exactly one parameter (its values are sent as one array); it declares " + declared);
    }
    if (batch.getSql() != null || batch.getKeyColumn() != null) {
      valid = violation(context, path, "of an HTTP source takes http, itemId and itemValue (sql and keyColumn are a SQL source's)");
    }
    HttpSourceFactory http = batch.getHttp();
    if (http == null) {
      return violation(
          context, path + ".http", "must give the batch request (a POST whose JSON body holds the parameter, or a GET whose query does)");
    }
    if (http.getEndpoint() != null && !http.getEndpoint().equals(single.getEndpoint())) {
      valid = violation(context, path + ".http.endpoint", "must be the source's own endpoint '" + single.getEndpoint() + "'");
    }
    String placeholder = declared.size() == 1 ? "{" + declared.iterator().next() + "}" : null;
    if ("GET".equalsIgnoreCase(http.getMethod())) {
      // the keys' values as a query list: ?id=1&id=2
      long lists = http.getQuery() == null ? 0 : http.getQuery().values().stream().filter(value -> value.equals(placeholder)).count();
      if (placeholder == null || lists != 1) {
        valid = violation(
            context, path + ".http.query",
            "of a GET batch request must hold the parameter as one query value, whole (id: \"{id}\"), sent once per key (?id=1&id=2)");
      }
      if (http.getBody() != null && !http.getBody().isNull()) {
        valid = violation(context, path + ".http.body", "must not be set on a GET batch request (the keys' values go in its query)");
      }
    } else if (!"POST".equalsIgnoreCase(http.getMethod())) {
      valid = violation(
          context, path + ".http.method", "must be POST (the keys' values in its JSON body) or GET (the keys' values as a query list)");
    } else if (http.getBody() == null || http.getBody().isNull() || placeholder == null || !wholePlaceholderIn(http.getBody(), placeholder)) {
      valid = violation(context, path + ".http.body", "must hold the parameter as a whole JSON string (\"{name}\"), which is sent as the array of the keys' values");
    }
    if (placeholder != null && http.getPath() != null && http.getPath().contains(placeholder)) {
      valid = violation(context, path + ".http.path", "must not hold the parameter (a batch sends many values: in its body, or as a query list)");
    }
    if (placeholder != null && http.getHeaders() != null && http.getHeaders().values().stream().anyMatch(value -> value.contains(placeholder))) {
      valid = violation(context, path + ".http.headers", "must not hold the parameter (a batch sends many values: in its body, or as a query list)");
    }
    if (http.getPointer() == null || http.getPointer().isEmpty()) {
      valid = violation(context, path + ".http.pointer", "must point at the array of items in the response");
    }
    if (batch.getItemId() == null || batch.getItemId().isEmpty()) {
      valid = violation(context, path + ".itemId", "must be the JSON Pointer, within an item, to the id it belongs to (e.g. /id)");
    }
    for (HttpSourceValidation.Violation broken : HttpSourceValidation.check(path + ".http", http, declared)) {
      valid = violation(context, broken.path(), broken.rule());
    }
    return valid;
  }

  /** Whether a JSON tree holds {@code placeholder} as one of its strings, whole. */
  private static boolean wholePlaceholderIn(com.fasterxml.jackson.databind.JsonNode node, String placeholder) {
    if (node.isTextual()) {
      return node.textValue().equals(placeholder);
    }
    for (com.fasterxml.jackson.databind.JsonNode child : node) {
      if (wholePlaceholderIn(child, placeholder)) {
        return true;
      }
    }
    return false;
  }

  private static boolean validHttpSource(
      ConstraintValidatorContext context, String path, SourceFactory source, Map<String, HttpEndpointFactory> endpoints) {
    boolean valid = true;
    HttpSourceFactory http = source.getHttp();
    if (source.getDatasource() != null) {
      valid = violation(context, path + ".datasource", "must not be set on an HTTP source (it names http.endpoint)");
    }
    if (source.getVersionSql() != null) {
      valid = violation(context, path + ".versionSql", "is for SQL sources; an HTTP source revalidates with ETag and Last-Modified");
    }
    if (source.resultGiven()) {
      valid = violation(context, path + ".result", "is for SQL sources; an HTTP source's value is its body, or the JSON at http.pointer");
    }
    if (source.getChanges() != null) {
      valid = violation(context, path + ".changes", "is for SQL sources (PostgreSQL LISTEN/NOTIFY)");
    }
    if (source.getBatch() != null) {
      valid &= validHttpBatch(context, path + ".batch", source, http, endpoints);
    }
    if (source.getNotFound() != null && source.getNotFound().getHttpStatus() != null) {
      for (Integer status : source.getNotFound().getHttpStatus()) {
        if (status == null || status < 400 || status > 599) {
          valid = violation(context, path + ".notFound.httpStatus", "must list 4xx or 5xx statuses, such as 404 or 410");
        } else if (http.getAcceptStatus().contains(status)) {
          valid = violation(context, path + ".notFound.httpStatus", "must not list a status the source accepts as a value (http.acceptStatus)");
        }
      }
    }
    if (source.getValueTtl() != null) {
      if (!source.getValueTtl().isCacheControl()) {
        valid = violation(context, path + ".valueTtl.cacheControl", "must be true on an HTTP source (its values' TTL comes from Cache-Control)");
      }
      if (source.getValueTtl().getColumn() != null) {
        valid = violation(context, path + ".valueTtl.column", "is for SQL sources; an HTTP source's TTL comes from Cache-Control");
      }
    }
    if (http.getEndpoint() != null && !endpoints.containsKey(http.getEndpoint())) {
      valid = violation(context, path + ".http.endpoint", "must be one of " + new TreeSet<>(endpoints.keySet()));
    }
    if (source.getParams() != null) {
      for (HttpSourceValidation.Violation broken :
          HttpSourceValidation.check(path + ".http", http, source.getParams().keySet())) {
        valid = violation(context, broken.path(), broken.rule());
      }
    }
    return valid;
  }

  private static boolean violation(ConstraintValidatorContext context, String path, String rule) {
    context.buildConstraintViolationWithTemplate(escape(path + " " + rule)).addConstraintViolation();
    return false;
  }

  /** Message templates interpolate {@code {...}} and {@code ${...}}; these messages are literal. */
  private static String escape(String text) {
    return text.replace("\\", "\\\\").replace("{", "\\{").replace("}", "\\}").replace("$", "\\$");
  }
}
