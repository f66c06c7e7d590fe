package io.refresher.jdbc;

import io.refresher.source.SourceCatalog;
import io.refresher.source.SourceDefinition;
import io.refresher.source.SourceException;
import io.refresher.source.ResultShape;
import io.refresher.source.ParamType;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import io.refresher.refresh.ValueLoader;
import io.refresher.registry.Registration;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.jdbi.v3.core.statement.ColonPrefixSqlParser;
import org.jdbi.v3.core.statement.ParsedSql;
import org.postgresql.jdbc.PgStatement;

/**
 * Computes values by running a registration's named source query on its datasource.
 *
 * <p>Each source's SQL is parsed once, at start, from {@code :named} to positional parameters
 * (Jdbi's parser, which knows string literals, comments and {@code ::} casts); every refresh then
 * runs a plain JDBC prepared statement, since this is the hot path of every refresh. Parameters are
 * always bound, never spliced into SQL. Each query runs with the source's timeout: PostgreSQL
 * statements get a millisecond timeout ({@code setQueryTimeoutMs}); other drivers get the JDBC
 * timeout rounded up to whole seconds. Every failure becomes a {@link SourceException}; nothing
 * else is thrown past this class.
 */
public final class JdbcValueLoader implements ValueLoader {

  private static final String QUERY_CANCELED = "57014";

  private final SourceCatalog catalog;
  private final Map<String, DataSource> datasources;
  private final Map<String, PreparedSource> prepared = new HashMap<>();
  private final JsonRowMapper rowMapper;
  private final ObjectMapper json;

  public JdbcValueLoader(SourceCatalog catalog, Map<String, DataSource> datasources, ObjectMapper json) {
    this.catalog = catalog;
    this.datasources = Map.copyOf(datasources);
    this.json = json;
    this.rowMapper = new JsonRowMapper(json);
    ColonPrefixSqlParser parser = new ColonPrefixSqlParser();
    for (SourceDefinition source : catalog.all()) {
      ParsedSql parsed = parser.parse(source.sql(), null);
      prepared.put(
          source.name(), new PreparedSource(parsed.getSql(), parsed.getParameters().getParameterNames()));
    }
  }

  /** A source's SQL with positional parameters, and the parameter name for each position. */
  private record PreparedSource(String sql, List<String> parameterOrder) {}

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
    DataSource dataSource = datasources.get(source.datasource());
    if (dataSource == null) {
      throw new SourceException(
          SourceException.Kind.ERROR, "datasource '" + source.datasource() + "' is not configured");
    }
    PreparedSource query = prepared.get(source.name());
    Map<String, Object> bound = bindable(source, registration.params());
    try (Connection connection = dataSource.getConnection();
        PreparedStatement statement = connection.prepareStatement(query.sql())) {
      for (int i = 0; i < query.parameterOrder().size(); i++) {
        statement.setObject(i + 1, bound.get(query.parameterOrder().get(i)));
      }
      setTimeout(statement, source.timeout().toMillis());
      if (source.result() != ResultShape.ROWS) {
        statement.setMaxRows(1);
      }
      try (ResultSet rows = statement.executeQuery()) {
        return switch (source.result()) {
          case ROWS -> rows(rows);
          case ROW -> row(rows, source);
          case SCALAR -> scalar(rows, source);
        };
      }
    } catch (SQLException e) {
      throw translate(source, e);
    } catch (RuntimeException e) {
      throw new SourceException(
          SourceException.Kind.ERROR, "source '" + source.name() + "' failed: " + e.getMessage(), e);
    }
  }

  private String rows(ResultSet rows) throws SQLException {
    ArrayNode array = json.createArrayNode();
    while (rows.next()) {
      array.add(rowMapper.row(rows));
    }
    return array.toString();
  }

  private String row(ResultSet rows, SourceDefinition source) throws SQLException, SourceException {
    if (!rows.next()) {
      throw noValue(source, "returned no row");
    }
    return rowMapper.row(rows).toString();
  }

  private String scalar(ResultSet rows, SourceDefinition source) throws SQLException, SourceException {
    if (!rows.next()) {
      throw noValue(source, "returned no row");
    }
    String value = rowMapper.scalarText(rows);
    if (value == null) {
      throw noValue(source, "returned NULL");
    }
    return value;
  }

  private static void setTimeout(PreparedStatement statement, long timeoutMillis) throws SQLException {
    if (statement.isWrapperFor(PgStatement.class)) {
      statement.unwrap(PgStatement.class).setQueryTimeoutMs(timeoutMillis);
    } else {
      statement.setQueryTimeout((int) Math.max(1, (timeoutMillis + 999) / 1000));
    }
  }

  private static SourceException noValue(SourceDefinition source, String what) {
    return new SourceException(SourceException.Kind.NO_VALUE, "source '" + source.name() + "' " + what);
  }

  private static Map<String, Object> bindable(SourceDefinition source, Map<String, Object> params)
      throws SourceException {
    Map<String, Object> bound = new HashMap<>();
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

  private static SourceException translate(SourceDefinition source, SQLException e) {
    if (QUERY_CANCELED.equals(e.getSQLState())) {
      return new SourceException(
          SourceException.Kind.TIMEOUT,
          "source '" + source.name() + "' timed out after " + source.timeout().toMillis() + " ms",
          e);
    }
    return new SourceException(
        SourceException.Kind.ERROR, "source '" + source.name() + "' failed: " + e.getMessage(), e);
  }
}
