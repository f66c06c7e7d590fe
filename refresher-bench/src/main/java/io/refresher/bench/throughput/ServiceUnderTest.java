package io.refresher.bench.throughput;

import com.codahale.metrics.MetricRegistry;
import io.refresher.ServiceWiring;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;

/**
 * The real service, in this JVM, configured from {@code bench.yml} on the run's Redis and a bench
 * database holding the {@code bench_item} table its {@code item} source reads (one primary-key
 * lookup per refresh: the cheapest source, so the service's own costs show).
 */
final class ServiceUnderTest implements AutoCloseable {

  private final BenchApplication app = new BenchApplication();
  private final String dbUrl;

  private ServiceUnderTest(String dbUrl) {
    this.dbUrl = dbUrl;
  }

  /**
   * @param ttr the fixed time-to-refresh (the adaptive TTR's bounds all set to it), so a key's
   *     refresh period is its TTL minus this
   */
  static ServiceUnderTest start(String redisUrl, String dbUrl, Duration ttr, int workers) throws Exception {
    ServiceUnderTest service = new ServiceUnderTest(dbUrl);
    service.app.run("server", writeConfig(redisUrl, dbUrl, ttr, workers).toString());
    return service;
  }

  ServiceWiring.Parts parts() {
    return app.parts();
  }

  MetricRegistry metrics() {
    return app.metrics();
  }

  LagRecorder lag() {
    return app.lag();
  }

  Connection sql() throws SQLException {
    return DriverManager.getConnection(dbUrl, "postgres", "postgres");
  }

  /** Registers {@code item:<from>..} with the given TTL, straight into the registry table. */
  void register(long from, long count, Duration ttl) throws SQLException {
    try (Connection db = sql();
        Statement sql = db.createStatement()) {
      sql.execute(
          "INSERT INTO refresher.refresher_key (key, source, params, ttl_ms, policy, created_at, updated_at) "
              + "SELECT 'item:' || i, 'item', jsonb_build_object('id', i), "
              + ttl.toMillis()
              + ", 'always', now(), now() FROM generate_series("
              + from
              + ", "
              + (from + count - 1)
              + ") i");
    }
  }

  /** Changes every registered key's TTL (a refresh reads its registration when it is claimed). */
  void setTtl(Duration ttl) throws SQLException {
    try (Connection db = sql();
        Statement sql = db.createStatement()) {
      sql.executeUpdate("UPDATE refresher.refresher_key SET ttl_ms = " + ttl.toMillis() + ", updated_at = now()");
    }
  }

  /** Rows the service inserted, updated or deleted in its own schema (Quartz's tables aside). */
  long rowsWritten() throws SQLException, InterruptedException {
    try (Connection db = sql();
        Statement sql = db.createStatement()) {
      // Backends report table statistics at the end of a transaction, at most every 500 ms.
      Thread.sleep(1_000);
      try (ResultSet rows =
          sql.executeQuery(
              "SELECT coalesce(sum(n_tup_ins + n_tup_upd + n_tup_del), 0) FROM pg_stat_user_tables"
                  + " WHERE schemaname = 'refresher' AND relname NOT LIKE 'qrtz%'")) {
        rows.next();
        return rows.getLong(1);
      }
    }
  }

  /** Creates {@code bench_item} with {@code count} rows in the bench database. */
  static void createItems(String dbUrl, long count) throws SQLException {
    try (Connection db = DriverManager.getConnection(dbUrl, "postgres", "postgres");
        Statement sql = db.createStatement()) {
      sql.execute("CREATE TABLE IF NOT EXISTS bench_item (id bigint PRIMARY KEY, v text NOT NULL)");
      sql.execute(
          "INSERT INTO bench_item SELECT i, 'item-' || i FROM generate_series(1, " + count + ") i ON CONFLICT DO NOTHING");
      sql.execute("ANALYZE bench_item");
    }
  }

  private static Path writeConfig(String redisUrl, String dbUrl, Duration ttr, int workers) throws Exception {
    String template;
    try (InputStream in = ServiceUnderTest.class.getResourceAsStream("/bench.yml")) {
      template = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    Map<String, String> values =
        Map.of(
            "@REDIS_URL@", redisUrl,
            "@DB_URL@", dbUrl,
            "@TTR@", ttr.toMillis() + "ms",
            "@WORKERS@", Integer.toString(workers),
            "@NETTY@", "0");
    for (Map.Entry<String, String> value : values.entrySet()) {
      template = template.replace(value.getKey(), value.getValue());
    }
    Path file = Files.createTempFile("refresher-bench", ".yml");
    file.toFile().deleteOnExit();
    Files.writeString(file, template);
    return file;
  }

  @Override
  public void close() throws Exception {
    app.stopServer();
  }
}
