package io.refresher.bench.throughput;

import com.codahale.metrics.MetricRegistry;
import io.refresher.bench.BenchConfig;
import io.refresher.bench.BenchItems;
import io.refresher.wiring.ServiceWiring;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;

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
  static ServiceUnderTest start(BenchConfig config) throws Exception {
    ServiceUnderTest service = new ServiceUnderTest(config.dbUrl());
    service.app.run("server", config.write().toString());
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
    return BenchItems.connect(dbUrl);
  }

  /** Registers {@code item:<from>..} with the given TTL, straight into the registry table. */
  void register(long from, long count, Duration ttl) throws SQLException {
    BenchItems.register(dbUrl, from, count, ttl, "always", Duration.ZERO);
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

  @Override
  public void close() throws Exception {
    app.stopServer();
  }
}
