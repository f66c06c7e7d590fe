package io.refresher.source;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.refresher.refresh.ValueLoader;
import io.refresher.registry.Registration;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.statement.Query;
import org.jdbi.v3.core.statement.StatementContext;
import org.jdbi.v3.core.statement.StatementCustomizer;
import org.postgresql.jdbc.PgStatement;

/**
 * Computes values by running a registration's named source query on its datasource.
 *
 * <p>Parameters are always bound, never spliced into SQL. Each query runs with the source's
 * timeout: PostgreSQL statements get a millisecond timeout ({@code setQueryTimeoutMs}); other
 * drivers get the JDBC timeout rounded up to whole seconds. Every failure becomes a {@link
 * SourceException}; nothing is thrown past this class.
 */
public final class JdbcValueLoader implements ValueLoader {

  private static final String QUERY_CANCELED = "57014";

  private final SourceCatalog catalog;
  private final Map<String, Jdbi> datasources;
  private final JsonRowMapper rowMapper;
  private final ObjectMapper json;

  public JdbcValueLoader(SourceCatalog catalog, Map<String, Jdbi> datasources, ObjectMapper json) {
    this.catalog = catalog;
    this.datasources = Map.copyOf(datasources);
    this.json = json;
    this.rowMapper = new JsonRowMapper(json);
  }

  @Override
  public String load(Registration registration) throws SourceException {
    SourceDefinition source =
        catalog
            .find(registration.source())
            .orElseThrow(
                () ->
                    new SourceException(
                        SourceException.Kind.ERROR,
                        "source '" + registration.source() + "' is no longer configured"));
    Jdbi jdbi = datasources.get(source.datasource());
    if (jdbi == null) {
      throw new SourceException(
          SourceException.Kind.ERROR, "datasource '" + source.datasource() + "' is not configured");
    }
    Map<String, Object> bound = bindable(source, registration.params());
    try (Handle handle = jdbi.open()) {
      Query query = handle.createQuery(source.sql()).bindMap(bound);
      query.addCustomizer(new TimeoutCustomizer(source.timeout().toMillis()));
      return switch (source.result()) {
        case ROWS -> rows(query);
        case ROW -> row(query, source);
        case SCALAR -> scalar(query, source);
      };
    } catch (SourceException e) {
      throw e;
    } catch (RuntimeException e) {
      throw translate(source, e);
    }
  }

  private String rows(Query query) throws SourceException {
    List<ObjectNode> rows = query.map(rowMapper).list();
    ArrayNode array = json.createArrayNode();
    array.addAll(rows);
    return array.toString();
  }

  private String row(Query query, SourceDefinition source) throws SourceException {
    query.setMaxRows(1);
    return query
        .map(rowMapper)
        .findFirst()
        .map(ObjectNode::toString)
        .orElseThrow(() -> noValue(source, "returned no row"));
  }

  private String scalar(Query query, SourceDefinition source) throws SourceException {
    query.setMaxRows(1);
    List<String> first = query.map((rs, ctx) -> rowMapper.scalarText(rs)).list();
    if (first.isEmpty()) {
      throw noValue(source, "returned no row");
    }
    if (first.get(0) == null) {
      throw noValue(source, "returned NULL");
    }
    return first.get(0);
  }

  private static SourceException noValue(SourceDefinition source, String what) {
    return new SourceException(SourceException.Kind.NO_VALUE, "source '" + source.name() + "' " + what);
  }

  private static Map<String, Object> bindable(SourceDefinition source, Map<String, Object> params)
      throws SourceException {
    Map<String, Object> bound = new LinkedHashMap<>();
    for (Map.Entry<String, ParamType> param : source.params().entrySet()) {
      Object raw = params.get(param.getKey());
      try {
        bound.put(param.getKey(), param.getValue().convert(raw));
      } catch (IllegalArgumentException e) {
        // Only reachable when configuration changed after the key was registered.
        throw new SourceException(
            SourceException.Kind.ERROR,
            "parameter '" + param.getKey() + "' of source '" + source.name() + "' " + e.getMessage());
      }
    }
    return bound;
  }

  private static SourceException translate(SourceDefinition source, RuntimeException e) {
    SQLException sql = findSqlException(e);
    if (sql != null && QUERY_CANCELED.equals(sql.getSQLState())) {
      return new SourceException(
          SourceException.Kind.TIMEOUT,
          "source '" + source.name() + "' timed out after " + source.timeout().toMillis() + " ms",
          e);
    }
    String detail = sql != null ? sql.getMessage() : e.getMessage();
    return new SourceException(
        SourceException.Kind.ERROR, "source '" + source.name() + "' failed: " + detail, e);
  }

  private static SQLException findSqlException(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof SQLException sql) {
        return sql;
      }
    }
    return null;
  }

  /** Puts the source's timeout on the statement right before it runs. */
  private record TimeoutCustomizer(long timeoutMillis) implements StatementCustomizer {
    @Override
    public void beforeExecution(PreparedStatement statement, StatementContext ctx) throws SQLException {
      if (statement.isWrapperFor(PgStatement.class)) {
        statement.unwrap(PgStatement.class).setQueryTimeoutMs(timeoutMillis);
      } else {
        statement.setQueryTimeout((int) Math.max(1, (timeoutMillis + 999) / 1000));
      }
    }
  }

}
