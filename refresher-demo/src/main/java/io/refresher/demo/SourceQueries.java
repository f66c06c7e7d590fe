package io.refresher.demo;

import io.refresher.embedded.EmbeddedPostgreSql;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The product source's queries as the database sees them, by its own clock: when each one started
 * ({@code pg_stat_activity.query_start}, sampled every 50 ms on a connection of its own: a query
 * sleeps 0.2 s, so none runs unseen), and how many completed ({@code pg_stat_statements}, to check
 * that none was missed). The load bound ({@code maxQueriesPerSecond}) bounds query starts.
 */
final class SourceQueries implements AutoCloseable {

  private static final String MARKER = "demo_product_query";
  private static final long SAMPLE_NANOS = TimeUnit.MILLISECONDS.toNanos(50);
  private static final long SECOND_MICROS = 1_000_000;
  private static final long NEAR_MICROS = 100_000;

  private final String dbUrl;
  /** (backend pid, start in epoch microseconds) of every query seen. */
  private final Set<Started> seen = ConcurrentHashMap.newKeySet();
  /** The sampler's own: the last start seen of each backend. */
  private final Map<Integer, Long> lastStartByPid = new HashMap<>();
  private final Thread sampler;
  private volatile boolean stopped;
  private volatile long sampledUpToMicros;

  private record Started(int pid, long micros) {}

  SourceQueries(String dbUrl) throws SQLException {
    this.dbUrl = dbUrl;
    Connection connection = connect(dbUrl);
    sampler = new Thread(() -> sample(connection), "demo-source-query-sampler");
    sampler.setDaemon(true);
    sampler.start();
  }

  private void sample(Connection connection) {
    try (connection;
        PreparedStatement statement =
            connection.prepareStatement(
                "SELECT (extract(epoch FROM clock_timestamp()) * 1000000)::bigint, a.pid,"
                    + " (extract(epoch FROM a.query_start) * 1000000)::bigint FROM (SELECT 1) one"
                    + " LEFT JOIN pg_stat_activity a ON a.state = 'active' AND a.pid <> pg_backend_pid()"
                    + " AND a.query LIKE '%" + MARKER + "%'")) {
      long next = System.nanoTime();
      while (!stopped) {
        long sampledAt = 0;
        try (ResultSet rs = statement.executeQuery()) {
          while (rs.next()) {
            sampledAt = rs.getLong(1);
            int pid = rs.getInt(2);
            if (!rs.wasNull()) {
              long startedAt = rs.getLong(3);
              Long last = lastStartByPid.get(pid);
              // A backend now and then shows two query_starts a millisecond apart for one query
              // (a few times per run, apparently when the JDBC driver moves the statement to a
              // server-side prepared one). It cannot start another within 0.2 s: each sleeps that long.
              if (last == null || Math.abs(startedAt - last) >= NEAR_MICROS) {
                seen.add(new Started(pid, startedAt));
                lastStartByPid.put(pid, startedAt);
              }
            }
          }
        }
        sampledUpToMicros = sampledAt;
        next += SAMPLE_NANOS;
        LockSupport.parkNanos(Math.max(0, next - System.nanoTime()));
      }
    } catch (SQLException e) {
      if (!stopped) {
        throw new IllegalStateException("the source-query sampler lost its database connection", e);
      }
    }
  }

  /** The database's clock now, in epoch microseconds. */
  long nowMicros() throws SQLException {
    try (Connection connection = connect(dbUrl);
        Statement statement = connection.createStatement();
        ResultSet rs = statement.executeQuery("SELECT (extract(epoch FROM clock_timestamp()) * 1000000)::bigint")) {
      rs.next();
      return rs.getLong(1);
    }
  }

  /** Queries started in {@code (fromMicros, toMicros]}, once the sampler has looked past {@code toMicros}. */
  int startedBetween(long fromMicros, long toMicros) {
    awaitSampledPast(toMicros);
    int started = 0;
    for (Started query : seen) {
      started += query.micros > fromMicros && query.micros <= toMicros ? 1 : 0;
    }
    return started;
  }

  /** The most queries started in any one second (a sliding window) within {@code [fromMicros, toMicros]}. */
  int maxInAnySecond(long fromMicros, long toMicros) {
    awaitSampledPast(toMicros);
    long[] starts =
        seen.stream().mapToLong(Started::micros).filter(at -> at >= fromMicros && at <= toMicros).sorted().toArray();
    int max = 0;
    for (int from = 0, to = 0; to < starts.length; to++) {
      while (starts[to] - starts[from] >= SECOND_MICROS) {
        from++;
      }
      max = Math.max(max, to - from + 1);
    }
    return max;
  }

  /** Waits (at most half a second) until the sampler has looked at the database after {@code micros}. */
  private void awaitSampledPast(long micros) {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(500);
    while (sampledUpToMicros < micros && System.nanoTime() < deadline) {
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
    }
  }

  /** Queries seen starting, all told. */
  int seen() {
    return seen.size();
  }

  /** Queries completed, all told, by pg_stat_statements. */
  long completed() throws SQLException {
    return Demo.executions(dbUrl, MARKER);
  }

  @Override
  public void close() throws InterruptedException {
    stopped = true;
    sampler.join(TimeUnit.SECONDS.toMillis(2));
  }

  private static Connection connect(String dbUrl) throws SQLException {
    return DriverManager.getConnection(dbUrl, EmbeddedPostgreSql.USER, EmbeddedPostgreSql.PASSWORD);
  }
}
