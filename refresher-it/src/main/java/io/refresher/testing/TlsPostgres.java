package io.refresher.testing;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A PostgreSQL server of its own (embedded, from the same binaries as {@link RealServers}) that
 * speaks TLS with a {@link TestCertificates} server certificate and accepts <em>only</em> TLS
 * connections over TCP: its {@code pg_hba.conf} has {@code hostssl} lines and no {@code host} line,
 * so a client that does not encrypt is refused ("no pg_hba.conf entry ... no encryption"). A
 * service that starts against it has therefore run its migrations, its registry, Quartz and its
 * sources over TLS. Always embedded, whichever backend {@link RealServers} uses.
 */
public final class TlsPostgres implements AutoCloseable {

  public static final String USER = "postgres";
  public static final String PASSWORD = "postgres";

  private static final AtomicInteger DATABASES = new AtomicInteger();

  private final EmbeddedPostgres postgres;
  private final TestCertificates certificates;

  private TlsPostgres(EmbeddedPostgres postgres, TestCertificates certificates) {
    this.postgres = postgres;
    this.certificates = certificates;
  }

  public static TlsPostgres start(TestCertificates certificates) {
    try {
      EmbeddedPostgres postgres =
          EmbeddedPostgres.builder()
              .setServerConfig("ssl", "on")
              .setServerConfig("ssl_cert_file", certificates.serverCertificate().toString())
              .setServerConfig("ssl_key_file", certificates.serverKey().toString())
              .setServerConfig("fsync", "off")
              .setServerConfig("max_connections", "100")
              .setDataDirectoryCustomizer(dataDirectory -> tlsOnly(dataDirectory.toPath()))
              .start();
      return new TlsPostgres(postgres, certificates);
    } catch (IOException e) {
      throw new UncheckedIOException("could not start embedded PostgreSQL with TLS", e);
    }
  }

  /** TCP connections must be TLS; the server's own local socket stays open for its tools. */
  private static void tlsOnly(Path dataDirectory) {
    try {
      Files.writeString(
          dataDirectory.resolve("pg_hba.conf"),
          """
          local    all all              trust
          hostssl  all all 127.0.0.1/32 trust
          hostssl  all all ::1/128      trust
          """);
    } catch (IOException e) {
      throw new UncheckedIOException("could not write pg_hba.conf", e);
    }
  }

  public int port() {
    return postgres.getPort();
  }

  /** A fresh database; its name. */
  public String createDatabase(String prefix) {
    String name = prefix.toLowerCase().replaceAll("[^a-z0-9_]", "_") + "_" + DATABASES.incrementAndGet();
    try (Connection connection = connect("postgres", certificates.caCertificate());
        Statement statement = connection.createStatement()) {
      statement.execute("CREATE DATABASE " + name);
    } catch (SQLException e) {
      throw new IllegalStateException("could not create database " + name, e);
    }
    return name;
  }

  /** The URL of {@code database} on {@code localhost} (the name the certificate holds), without TLS settings. */
  public String url(String database) {
    return "jdbc:postgresql://localhost:" + port() + "/" + database;
  }

  /** The URL with {@code sslmode=verify-full}, trusting the CA in {@code rootCertificate} (PEM). */
  public String verifiedUrl(String database, Path rootCertificate) {
    return url(database) + "?sslmode=verify-full&sslrootcert=" + rootCertificate;
  }

  /** {@code database} as the service would be configured for it: verified TLS through the URL. */
  public TestDatabase database(String database, Path rootCertificate) {
    return new TestDatabase(verifiedUrl(database, rootCertificate), USER, PASSWORD);
  }

  /** A verified TLS connection, for the test's own queries. */
  public Connection connect(String database, Path rootCertificate) throws SQLException {
    return DriverManager.getConnection(verifiedUrl(database, rootCertificate), USER, PASSWORD);
  }

  /** A connection with the given JDBC properties (sslmode and friends) and nothing else. */
  public Connection connect(String url, Map<String, String> properties) throws SQLException {
    java.util.Properties all = new java.util.Properties();
    all.setProperty("user", USER);
    all.setProperty("password", PASSWORD);
    all.putAll(properties);
    return DriverManager.getConnection(url, all);
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
