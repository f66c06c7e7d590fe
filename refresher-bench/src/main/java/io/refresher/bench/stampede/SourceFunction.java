package io.refresher.bench.stampede;

import io.refresher.embedded.EmbeddedPostgreSql;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Arrays;

/**
 * The recomputation every strategy runs: {@code bench_compute(run, strategy, id, cost)}, a
 * PL/pgSQL function whose cost is controlled ({@code pg_sleep}, or a CPU-bound sum over generated
 * rows) and which reports every execution it completes with {@code pg_notify} on {@link
 * #CHANNEL}: the database itself counts executions per strategy, key and time, whichever client
 * ran them (the service's sources run on read-only connections, where an INSERT is refused but a
 * notification is not; it is delivered when the statement's transaction commits).
 */
final class SourceFunction {

  static final String CHANNEL = "bench_exec";

  private static final String FUNCTION =
      """
      CREATE OR REPLACE FUNCTION bench_compute(run text, strategy text, id text, cost text) RETURNS text
      LANGUAGE plpgsql VOLATILE AS $$
      DECLARE
        kind text := split_part(cost, ':', 1);
        amount bigint := split_part(cost, ':', 2)::bigint;
        started bigint := (extract(epoch FROM clock_timestamp()) * 1000000)::bigint;
        finished bigint;
        result bigint := 0;
      BEGIN
        IF kind = 'sleep' THEN
          PERFORM pg_sleep(amount / 1000.0);
        ELSIF kind = 'cpu' THEN
          SELECT sum(x) INTO result FROM (SELECT generate_series(1, amount) AS x) s;
        END IF;
        finished := (extract(epoch FROM clock_timestamp()) * 1000000)::bigint;
        PERFORM pg_notify('bench_exec', run || ' ' || strategy || ' ' || id || ' ' || started || ' ' || finished);
        RETURN strategy || '|' || id || '|' || finished || '|' || result;
      END $$
      """;

  private SourceFunction() {}

  /** Creates the function in the database of {@code jdbcUrl}. */
  static void install(String jdbcUrl) throws SQLException {
    try (Connection connection = connect(jdbcUrl);
        Statement sql = connection.createStatement()) {
      sql.execute(FUNCTION);
    }
  }

  /**
   * Sizes the CPU-bound cost: the row count that takes about {@code targetMillis} (median of a few
   * runs on this machine, as it is loaded now) and what it measured.
   */
  static SourceCost calibrateCpu(String jdbcUrl, double targetMillis) throws SQLException {
    try (Connection connection = connect(jdbcUrl);
        PreparedStatement call = connection.prepareStatement("SELECT bench_compute('calibration', 'calibration', '0', ?)")) {
      long rows = 200_000;
      for (int round = 0; round < 3; round++) {
        double millis = median(call, "cpu:" + rows, 5);
        rows = Math.max(10_000, Math.round(rows * targetMillis / Math.max(0.1, millis)));
      }
      return SourceCost.cpu(rows, median(call, "cpu:" + rows, 7));
    }
  }

  private static double median(PreparedStatement call, String cost, int runs) throws SQLException {
    double[] millis = new double[runs];
    for (int i = 0; i < runs; i++) {
      call.setString(1, cost);
      long started = System.nanoTime();
      try (ResultSet rows = call.executeQuery()) {
        rows.next();
      }
      millis[i] = (System.nanoTime() - started) / 1e6;
    }
    Arrays.sort(millis);
    return millis[runs / 2];
  }

  /**
   * Checks that an execution on a read-only session (as the service's sources run: {@code
   * readOnlyMode=always}) reaches the log: the transaction is read-only and the notification still
   * arrives. Throws if not, so that no run counts executions it cannot see.
   */
  static void checkCounting(String jdbcUrl, String run, ExecutionLog log) throws Exception {
    java.util.Properties properties = new java.util.Properties();
    properties.setProperty("user", EmbeddedPostgreSql.USER);
    properties.setProperty("password", EmbeddedPostgreSql.PASSWORD);
    properties.setProperty("readOnly", "true");
    properties.setProperty("readOnlyMode", "always");
    String readOnly;
    try (Connection connection = DriverManager.getConnection(jdbcUrl, properties);
        Statement sql = connection.createStatement()) {
      connection.setReadOnly(true);
      try (ResultSet rows = sql.executeQuery("SELECT current_setting('transaction_read_only'), bench_compute('" + run + "', 'check', '0', 'sleep:0')")) {
        rows.next();
        readOnly = rows.getString(1);
      }
    }
    if (!"on".equals(readOnly)) {
      throw new IllegalStateException("the check's session was not read-only (transaction_read_only=" + readOnly + ")");
    }
    long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(3);
    while (System.nanoTime() < deadline) {
      if (log.executions().stream().anyMatch(e -> e.strategy().equals("check"))) {
        return;
      }
      Thread.sleep(20);
    }
    throw new IllegalStateException(
        "pg_notify from a read-only transaction did not reach the LISTEN connection: executions cannot be counted");
  }

  static Connection connect(String jdbcUrl) throws SQLException {
    return DriverManager.getConnection(jdbcUrl, EmbeddedPostgreSql.USER, EmbeddedPostgreSql.PASSWORD);
  }
}
