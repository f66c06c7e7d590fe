package io.refresher.jdbc;

import io.refresher.source.BatchForm;
import io.refresher.source.SourceCatalog;
import io.refresher.source.SourceDefinition;
import io.refresher.source.SourceException;
import io.refresher.source.ResultShape;
import io.refresher.source.ValueTtl;
import io.refresher.client.protocol.NotFoundMarker;
import io.refresher.source.ParamType;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.refresher.refresh.BatchItem;
import io.refresher.refresh.Loaded;
import io.refresher.refresh.ValueLoader;
import io.refresher.registry.Registration;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
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
 * else is thrown past this class. A database error's message is its SQLSTATE and the first line of
 * the server's message ({@link SqlErrorText}); the full error, whose Detail and Where can quote
 * rows, is the exception's detail, for the log.
 *
 * <p>Size: a {@code rows} result is streamed, {@value #FETCH_SIZE} rows per round trip, and its
 * JSON written as the rows arrive; the read stops, and the refresh fails with {@code
 * VALUE_TOO_LARGE}, as soon as the JSON passes {@code maxValueBytes}. Without this the driver
 * read the whole result into memory first: a 100 MB result took 4.5 s and 180 MB of heap before
 * the size check refused it. PostgreSQL's driver streams only with a fetch size, a forward-only
 * result set and auto-commit off, so a {@code rows} query runs in a read-only transaction of its
 * own, rolled back at the end; closing the result set closes the server's portal, and rows not
 * fetched are never computed. The statement timeout covers the query's execution and first batch
 * only (pgjdbc's timer stops when {@code execute} returns); every query is also cancelled at its
 * deadline by {@link QueryDeadlines}, which ends a later fetch that trickles, and the rows already
 * fetched are checked against the same deadline between rows. The deadline starts before the
 * connection is taken from the pool: the timeout is the whole read's, as it is an HTTP request's. A {@code row} or {@code
 * scalar} result is one row, which the driver reads whole; its size is checked by the caller.
 */
public final class JdbcValueLoader implements ValueLoader, AutoCloseable {

  private static final String QUERY_CANCELED = "57014";

  /** Rows per round trip of a streamed {@code rows} result: about 100 kB at 1 kB per row. */
  static final int FETCH_SIZE = 100;

  private final SourceCatalog catalog;
  private final Map<String, DataSource> datasources;
  private final Map<String, PreparedSource> prepared = new HashMap<>();
  private final Map<String, PreparedSource> preparedVersions = new HashMap<>();
  private final Map<String, PreparedSource> preparedBatches = new HashMap<>();
  private final JsonRowMapper rowMapper;
  private final ObjectMapper json;
  private final long maxValueBytes;
  private final QueryDeadlines deadlines;

  /**
   * @param maxValueBytes the largest value a refresh may write ({@code refresh.maxValueSize}): the
   *     read of a {@code rows} result stops past it
   * @param deadlineTimer ends each query at its source's timeout (one thread; cancelled timers
   *     leave its queue); shut down by {@link #close()}
   * @param cancelSenders send the cancel requests, which may block on a frozen server; shut down by
   *     {@link #close()}
   */
  public JdbcValueLoader(
      SourceCatalog catalog,
      Map<String, DataSource> datasources,
      ObjectMapper json,
      long maxValueBytes,
      ScheduledThreadPoolExecutor deadlineTimer,
      ExecutorService cancelSenders) {
    this.deadlines = new QueryDeadlines(deadlineTimer, cancelSenders);
    this.catalog = catalog;
    this.datasources = Map.copyOf(datasources);
    this.json = json;
    this.maxValueBytes = maxValueBytes;
    this.rowMapper = new JsonRowMapper(json);
    ColonPrefixSqlParser parser = new ColonPrefixSqlParser();
    for (SourceDefinition source : catalog.all()) {
      if (source.isHttp()) {
        continue;
      }
      prepared.put(source.name(), prepare(parser, source.sql()));
      if (source.versionSql() != null) {
        preparedVersions.put(source.name(), prepare(parser, source.versionSql()));
      }
      if (source.batch() != null) {
        preparedBatches.put(source.name(), prepare(parser, source.batch().sql()));
      }
    }
  }

  @Override
  public java.util.Optional<BatchForm> batchForm(Registration registration) {
    return preparedBatches.containsKey(registration.source())
        ? catalog.find(registration.source()).map(SourceDefinition::batch)
        : java.util.Optional.empty();
  }

  /**
   * Runs the source's batch query once, its one parameter bound as a PostgreSQL array of the keys'
   * values ({@code WHERE id = ANY(:id)}), and hands each row to the keys whose value its {@code
   * keyColumn} holds (keys with equal parameters share a row). A row is read as the single-key
   * query's would be ({@code row}: the row as JSON; {@code scalar}: the first column that is not
   * the key column); one that cannot be read fails its keys alone. A key without a row gets the
   * source's not-found rule. Rows nobody asked for, and a key's rows after its first, are ignored.
   */
  @Override
  public Map<String, BatchItem> loadBatch(List<Registration> registrations) throws SourceException {
    SourceDefinition source = source(registrations.get(0));
    PreparedSource query = preparedBatches.get(source.name());
    if (query == null) {
      return ValueLoader.super.loadBatch(registrations);
    }
    DataSource dataSource = dataSource(source);
    BatchForm batch = source.batch();
    Map.Entry<String, ParamType> param = source.params().entrySet().iterator().next();
    Map<String, BatchItem> items = new HashMap<>();
    Map<Object, List<Registration>> byValue = new java.util.LinkedHashMap<>();
    for (Registration registration : registrations) {
      try {
        byValue.computeIfAbsent(param.getValue().convert(registration.params().get(param.getKey())), value -> new ArrayList<>())
            .add(registration);
      } catch (IllegalArgumentException e) {
        items.put(
            registration.key(),
            BatchItem.failed(
                new SourceException(
                    SourceException.Kind.ERROR,
                    "parameter '" + param.getKey() + "' of source '" + source.name() + "' " + e.getMessage())));
      }
    }
    long deadlineNanos = System.nanoTime() + source.timeout().toNanos();
    try (Connection connection = dataSource.getConnection();
        PreparedStatement statement = connection.prepareStatement(query.sql(), ResultSet.TYPE_FORWARD_ONLY, ResultSet.CONCUR_READ_ONLY);
        QueryDeadlines.Deadline deadline = deadlines.start(connection, statement, deadlineNanos)) {
      java.sql.Array values = connection.createArrayOf(arrayType(param.getValue()), byValue.keySet().toArray());
      for (int i = 0; i < query.parameterOrder().size(); i++) {
        statement.setArray(i + 1, values);
      }
      setTimeout(statement, millisLeft(deadlineNanos));
      try (ResultSet rows = statement.executeQuery()) {
        int keyColumn = rows.findColumn(batch.keyColumn());
        while (rows.next()) {
          Object raw = rows.getObject(keyColumn);
          List<Registration> owners;
          try {
            owners = raw == null ? null : byValue.get(param.getValue().convert(raw));
          } catch (IllegalArgumentException e) {
            owners = null; // a key column of another type holds no value any key asked for
          }
          if (owners == null || items.containsKey(owners.get(0).key())) {
            continue;
          }
          BatchItem item;
          try {
            item = BatchItem.of(batchRow(rows, source, keyColumn));
          } catch (SourceException e) {
            item = BatchItem.failed(e);
          } catch (SQLException | RuntimeException e) {
            // Its message may quote the row: the log's only.
            item =
                BatchItem.failed(
                    new SourceException(
                        SourceException.Kind.ERROR,
                        "source '" + source.name() + "': its batch row could not be read (" + e.getClass().getSimpleName() + ")",
                        String.valueOf(e),
                        e,
                        null));
          }
          for (Registration owner : owners) {
            items.put(owner.key(), item);
          }
        }
      }
    } catch (SQLException e) {
      if (e.getMessage() != null && e.getMessage().contains("column name") && e.getMessage().contains(batch.keyColumn())) {
        throw new SourceException(
            SourceException.Kind.ERROR, "source '" + source.name() + "': its batch query returned no column '" + batch.keyColumn() + "' (batch.keyColumn)");
      }
      throw translate(source, e);
    } catch (RuntimeException e) {
      throw new SourceException(
          SourceException.Kind.ERROR, "source '" + source.name() + "' failed: " + e.getClass().getSimpleName(), String.valueOf(e), e, null);
    }
    for (List<Registration> owners : byValue.values()) {
      for (Registration owner : owners) {
        if (!items.containsKey(owner.key())) {
          try {
            items.put(owner.key(), BatchItem.of(notFound(source, null)));
          } catch (SourceException e) {
            items.put(owner.key(), BatchItem.failed(e));
          }
        }
      }
    }
    return items;
  }

  /** A batch row as the single-key query's row would be read: the whole row, or its value column. */
  private Loaded.Value batchRow(ResultSet rows, SourceDefinition source, int keyColumn) throws SQLException, SourceException {
    if (source.result() == ResultShape.SCALAR) {
      int valueColumn = keyColumn == 1 ? 2 : 1;
      if (valueColumn > rows.getMetaData().getColumnCount()) {
        throw new SourceException(
            SourceException.Kind.ERROR, "source '" + source.name() + "': a scalar batch query returns the key column and the value's");
      }
      String value = rowMapper.scalarText(rows, valueColumn);
      if (value == null) {
        throw noValue(source, "returned NULL");
      }
      return new Loaded.Value(value, null, ttl(rows, source));
    }
    return rowValue(rows, source, null);
  }

  /** PostgreSQL's name of the array element type a parameter's values are bound as. */
  private static String arrayType(ParamType type) {
    return switch (type) {
      case STRING -> "text";
      case LONG -> "int8";
      case DOUBLE -> "float8";
      case BOOLEAN -> "bool";
    };
  }

  private static PreparedSource prepare(ColonPrefixSqlParser parser, String sql) {
    ParsedSql parsed = parser.parse(sql, null);
    return new PreparedSource(parsed.getSql(), parsed.getParameters().getParameterNames());
  }

  /** A SQL source with a version query can say whether its value changed. */
  @Override
  public boolean revalidates(Registration registration) {
    return preparedVersions.containsKey(registration.source());
  }

  /**
   * With a version query: runs it first (a scalar over some of the source's parameters, such as
   * {@code SELECT max(updated_at) FROM product WHERE category = :category}); when its result equals
   * the version stored with the value, the value still holds and the source query does not run.
   * Otherwise the source query runs, and its value is stored with the version read before it: a
   * change committed between the two reads shows as a new version at the next refresh, never as a
   * missed one. A version query that returns no row or NULL says nothing: the value is computed.
   */
  @Override
  public Loaded loadIfChanged(Registration registration, String validator) throws SourceException {
    PreparedSource versionQuery = preparedVersions.get(registration.source());
    if (versionQuery == null) {
      return loadValue(registration, null);
    }
    SourceDefinition source = source(registration);
    String version = version(source, versionQuery, registration);
    String current = version == null ? null : VERSION_PREFIX + version;
    if (current != null && current.equals(validator)) {
      return new Loaded.Unchanged();
    }
    return loadValue(registration, current);
  }

  /** Marks a stored validator as a SQL version (an HTTP source's are ETags and dates). */
  static final String VERSION_PREFIX = "version:";

  @SuppressWarnings("try") // the deadline only has to be open while the query runs
  private String version(SourceDefinition source, PreparedSource query, Registration registration)
      throws SourceException {
    Map<String, Object> bound = bindable(source, registration.params());
    long deadlineNanos = System.nanoTime() + source.timeout().toNanos();
    try (Connection connection = dataSource(source).getConnection();
        PreparedStatement statement = connection.prepareStatement(query.sql());
        QueryDeadlines.Deadline deadline = deadlines.start(connection, statement, deadlineNanos)) {
      for (int i = 0; i < query.parameterOrder().size(); i++) {
        statement.setObject(i + 1, bound.get(query.parameterOrder().get(i)));
      }
      setTimeout(statement, millisLeft(deadlineNanos));
      statement.setMaxRows(1);
      try (ResultSet rows = statement.executeQuery()) {
        return rows.next() ? rowMapper.scalarText(rows) : null;
      }
    } catch (SQLException e) {
      SourceException translated = translate(source, e);
      throw translated.withMessage("version query of " + translated.getMessage());
    }
  }

  private SourceDefinition source(Registration registration) throws SourceException {
    return catalog
        .find(registration.source())
        .orElseThrow(
            () ->
                new SourceException(
                    SourceException.Kind.ERROR,
                    "source '" + registration.source() + "' is no longer configured"));
  }

  private DataSource dataSource(SourceDefinition source) throws SourceException {
    DataSource dataSource = datasources.get(source.datasource());
    if (dataSource == null) {
      throw new SourceException(
          SourceException.Kind.ERROR, "datasource '" + source.datasource() + "' is not configured");
    }
    return dataSource;
  }

  /** A source's SQL with positional parameters, and the parameter name for each position. */
  private record PreparedSource(String sql, List<String> parameterOrder) {}

  @Override
  public String load(Registration registration) throws SourceException {
    return loadValue(registration, null).value();
  }

  /** Runs the source's query: its value, and the TTL the row gives it when the source reads one. */
  private Loaded.Value loadValue(Registration registration, String validator) throws SourceException {
    SourceDefinition source = source(registration);
    DataSource dataSource = dataSource(source);
    PreparedSource query = prepared.get(source.name());
    Map<String, Object> bound = bindable(source, registration.params());
    boolean streamed = source.result() == ResultShape.ROWS;
    long deadlineNanos = System.nanoTime() + source.timeout().toNanos();
    try (Connection connection = dataSource.getConnection()) {
      if (streamed) {
        connection.setAutoCommit(false); // the driver streams only inside a transaction
      }
      try (PreparedStatement statement =
              connection.prepareStatement(query.sql(), ResultSet.TYPE_FORWARD_ONLY, ResultSet.CONCUR_READ_ONLY);
          QueryDeadlines.Deadline deadline = deadlines.start(connection, statement, deadlineNanos)) {
        for (int i = 0; i < query.parameterOrder().size(); i++) {
          statement.setObject(i + 1, bound.get(query.parameterOrder().get(i)));
        }
        setTimeout(statement, millisLeft(deadlineNanos));
        if (streamed) {
          statement.setFetchSize(FETCH_SIZE);
        } else {
          statement.setMaxRows(1);
        }
        try (ResultSet rows = statement.executeQuery()) {
          return switch (source.result()) {
            case ROWS -> new Loaded.Value(rows(rows, source, deadline), validator);
            case ROW -> row(rows, source, validator);
            case SCALAR -> scalar(rows, source, validator);
          };
        }
      } finally {
        if (streamed) {
          endTransaction(connection);
        }
      }
    } catch (SQLException e) {
      throw translate(source, e);
    } catch (RuntimeException e) {
      // Its message may quote what was read (a value that did not convert): the log's only.
      throw new SourceException(
          SourceException.Kind.ERROR, "source '" + source.name() + "' failed: " + e.getClass().getSimpleName(), String.valueOf(e), e, null);
    }
  }

  /**
   * The rows as a JSON array, written as they are fetched. Stops reading once the JSON passes
   * {@code maxValueBytes} (counted exactly: bytes written plus bytes still in the generator's
   * buffer), or once the source's deadline passes between rows.
   */
  private String rows(ResultSet rows, SourceDefinition source, QueryDeadlines.Deadline deadline)
      throws SQLException, SourceException {
    ByteArrayOutputStream out = new ByteArrayOutputStream(8192);
    long read = 0;
    try (JsonGenerator generator = json.getFactory().createGenerator(out)) {
      generator.writeStartArray();
      while (next(rows, source, read)) {
        read++;
        json.writeTree(generator, rowMapper.row(rows));
        long size = out.size() + generator.getOutputBuffered() + 1; // + the closing bracket
        if (size > maxValueBytes) {
          throw new SourceException(
              SourceException.Kind.VALUE_TOO_LARGE,
              "source '" + source.name() + "' returned more than the limit of " + maxValueBytes
                  + " bytes; stopped reading after " + read + " rows (" + size + " bytes)");
        }
        if (deadline.passed()) {
          throw new SourceException(
              SourceException.Kind.TIMEOUT,
              "source '" + source.name() + "' timed out after " + source.timeout().toMillis()
                  + " ms (while reading row " + read + ")");
        }
      }
      generator.writeEndArray();
    } catch (IOException e) {
      // Writing to memory: only reachable through a bug in the generator.
      throw new SourceException(
          SourceException.Kind.ERROR, "source '" + source.name() + "': JSON of its rows failed", e.getMessage(), e, null);
    }
    return out.toString(StandardCharsets.UTF_8);
  }

  /** The next row; a fetch cancelled at the deadline ({@link QueryDeadlines}) says where the read was. */
  private static boolean next(ResultSet rows, SourceDefinition source, long read) throws SQLException, SourceException {
    try {
      return rows.next();
    } catch (SQLException e) {
      if (read > 0 && QUERY_CANCELED.equals(e.getSQLState())) {
        throw new SourceException(
            SourceException.Kind.TIMEOUT,
            "source '" + source.name() + "' timed out after " + source.timeout().toMillis()
                + " ms (while reading row " + (read + 1) + ")",
            e);
      }
      throw e;
    }
  }

  /** Ends a streamed read's read-only transaction; the pool restores auto-commit on return. */
  private static void endTransaction(Connection connection) {
    try {
      connection.rollback();
    } catch (SQLException e) {
      // A broken connection: the pool evicts it; nothing was written in this transaction anyway.
    }
  }

  private Loaded.Value row(ResultSet rows, SourceDefinition source, String validator) throws SQLException, SourceException {
    if (!rows.next()) {
      return notFound(source, validator);
    }
    return rowValue(rows, source, validator);
  }

  /** The current row as a {@code row} source's value, without its TTL column, with the TTL it sets. */
  private Loaded.Value rowValue(ResultSet rows, SourceDefinition source, String validator) throws SQLException, SourceException {
    com.fasterxml.jackson.databind.node.ObjectNode row = rowMapper.row(rows);
    ValueTtl valueTtl = source.valueTtl();
    if (valueTtl == null || valueTtl.column() == null) {
      return new Loaded.Value(row.toString(), validator);
    }
    // the TTL column is about the value, not part of it
    row.remove(valueTtl.column());
    return new Loaded.Value(row.toString(), validator, ttl(rows, source));
  }

  private Loaded.Value scalar(ResultSet rows, SourceDefinition source, String validator) throws SQLException, SourceException {
    if (!rows.next()) {
      return notFound(source, validator);
    }
    String value = rowMapper.scalarText(rows);
    if (value == null) {
      throw noValue(source, "returned NULL");
    }
    return new Loaded.Value(value, validator, ttl(rows, source));
  }

  /**
   * No row: the not-found marker with its own TTL when the source has a {@code notFound} rule,
   * otherwise a failure (kind {@code no_value}) that keeps the old value.
   */
  private static Loaded.Value notFound(SourceDefinition source, String validator) throws SourceException {
    if (source.notFound() == null) {
      throw noValue(source, "returned no row");
    }
    return new Loaded.Value(NotFoundMarker.VALUE, validator, source.notFound().ttl());
  }

  /**
   * The TTL the current row gives its value: the source's TTL column, in seconds (a number, or
   * text holding one), bounded by its {@code valueTtl}. Null when the source reads none or the
   * column is NULL: the registration's TTL then. A column that is not a number fails the refresh.
   */
  private static java.time.Duration ttl(ResultSet rows, SourceDefinition source) throws SQLException, SourceException {
    ValueTtl valueTtl = source.valueTtl();
    if (valueTtl == null || valueTtl.column() == null) {
      return null;
    }
    Object raw;
    try {
      raw = rows.getObject(valueTtl.column());
    } catch (SQLException e) {
      throw new SourceException(
          SourceException.Kind.ERROR, "source '" + source.name() + "' returned no column '" + valueTtl.column() + "' (valueTtl.column)");
    }
    if (raw == null) {
      return null;
    }
    double seconds;
    try {
      seconds = raw instanceof Number number ? number.doubleValue() : Double.parseDouble(raw.toString().trim());
    } catch (NumberFormatException e) {
      throw new SourceException(
          SourceException.Kind.ERROR,
          "source '" + source.name() + "': its TTL column '" + valueTtl.column() + "' is not a number of seconds");
    }
    java.time.Duration ttl = valueTtl.ofSeconds(seconds);
    if (ttl == null) {
      throw new SourceException(
          SourceException.Kind.ERROR,
          "source '" + source.name() + "': its TTL column '" + valueTtl.column() + "' is not a finite number of seconds");
    }
    return ttl;
  }

  /** Stops the deadlines' timer (at the service's stop). */
  @Override
  public void close() {
    deadlines.close();
  }

  /**
   * What is left of the read's timeout for the statement's own: the time taken to get a connection
   * counts. A read whose deadline passed while it waited for one fails as a timeout at once.
   */
  private static long millisLeft(long deadlineNanos) throws SQLException {
    long left = TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime());
    if (left <= 0) {
      throw new SQLException("timed out waiting for a connection", QUERY_CANCELED);
    }
    return left;
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
        SourceException.Kind.ERROR, "source '" + source.name() + "' failed: " + SqlErrorText.of(e), e.getMessage(), e, null);
  }
}
