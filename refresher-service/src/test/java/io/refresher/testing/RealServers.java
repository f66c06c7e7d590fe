package io.refresher.testing;

import io.refresher.embedded.EmbeddedPostgreSql;
import io.refresher.embedded.EmbeddedRedis;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.PostgreSQLContainer;
import org.testcontainers.utility.DockerImageName;

/**
 * Real Redis and PostgreSQL servers for integration tests: Testcontainers where a Docker engine is
 * available, otherwise embedded servers started from Maven artifacts. Choose explicitly with
 * {@code -Drefresher.test.servers=embedded|containers}.
 *
 * <p>One PostgreSQL server is shared by the whole test run; every test class gets its own database.
 * Every test class gets its own Redis too: a new embedded process (cheap; stopped when the test
 * JVM exits, if the test does not close it), or a flushed container.
 */
public final class RealServers {

  private static final Logger LOG = LoggerFactory.getLogger(RealServers.class);
  private static final AtomicInteger DATABASES = new AtomicInteger();

  private static Backend backend;

  private RealServers() {}

  /** A fresh, empty database on the shared server (with pg_stat_statements installed). */
  public static synchronized TestDatabase newDatabase(String prefix) {
    return backend().newDatabase(prefix);
  }

  /** A Redis for one test class. Close it when done. */
  public static synchronized TestRedis newRedis() {
    return backend().newRedis();
  }

  private static Backend backend() {
    if (backend == null) {
      String choice = System.getProperty("refresher.test.servers", "auto");
      boolean containers =
          "containers".equals(choice) || ("auto".equals(choice) && dockerAvailable());
      backend = containers ? new ContainerBackend() : new EmbeddedBackend();
      LOG.info("integration tests run on {} servers", containers ? "Testcontainers" : "embedded");
    }
    return backend;
  }

  private static boolean dockerAvailable() {
    try {
      return DockerClientFactory.instance().isDockerAvailable();
    } catch (RuntimeException | LinkageError e) {
      return false;
    }
  }

  private interface Backend {
    TestDatabase newDatabase(String prefix);

    TestRedis newRedis();
  }

  private static final class EmbeddedBackend implements Backend {
    private final EmbeddedPostgreSql postgres = EmbeddedPostgreSql.start();

    EmbeddedBackend() {
      Runtime.getRuntime().addShutdownHook(new Thread(postgres::close, "embedded-postgres-stop"));
    }

    @Override
    public TestDatabase newDatabase(String prefix) {
      return new TestDatabase(
          postgres.createDatabase(prefix), EmbeddedPostgreSql.USER, EmbeddedPostgreSql.PASSWORD);
    }

    @Override
    public TestRedis newRedis() {
      EmbeddedRedis redis = EmbeddedRedis.start();
      Runtime.getRuntime().addShutdownHook(new Thread(redis::close, "embedded-redis-stop"));
      return new TestRedis() {
        @Override
        public String url() {
          return redis.url();
        }

        @Override
        public void loseData() {
          redis.restart();
        }

        @Override
        public void close() {
          redis.close();
        }
      };
    }
  }

  private static final class ContainerBackend implements Backend {
    private final PostgreSQLContainer<?> postgres =
        new PostgreSQLContainer<>(DockerImageName.parse("postgres:16-alpine"))
            .withCommand(
                "postgres", "-c", "shared_preload_libraries=pg_stat_statements", "-c", "fsync=off", "-c",
                "max_connections=300");
    private final GenericContainer<?> redis =
        new GenericContainer<>(DockerImageName.parse("redis:7-alpine")).withExposedPorts(6379);

    ContainerBackend() {
      postgres.start();
      redis.start();
    }

    @Override
    public TestDatabase newDatabase(String prefix) {
      String name = prefix.toLowerCase().replaceAll("[^a-z0-9_]", "_") + "_" + DATABASES.incrementAndGet();
      try (Connection connection =
              DriverManager.getConnection(postgres.getJdbcUrl(), postgres.getUsername(), postgres.getPassword());
          Statement statement = connection.createStatement()) {
        statement.execute("CREATE DATABASE " + name);
      } catch (SQLException e) {
        throw new IllegalStateException("could not create database " + name, e);
      }
      String url =
          "jdbc:postgresql://" + postgres.getHost() + ":" + postgres.getMappedPort(5432) + "/" + name;
      try (Connection connection = DriverManager.getConnection(url, postgres.getUsername(), postgres.getPassword());
          Statement statement = connection.createStatement()) {
        statement.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
      } catch (SQLException e) {
        throw new IllegalStateException("could not prepare database " + name, e);
      }
      return new TestDatabase(url, postgres.getUsername(), postgres.getPassword());
    }

    @Override
    public TestRedis newRedis() {
      flushAll();
      return new TestRedis() {
        @Override
        public String url() {
          return "redis://" + redis.getHost() + ":" + redis.getMappedPort(6379);
        }

        @Override
        public void loseData() {
          flushAll();
        }

        @Override
        public void close() {
          // Shared container; the next test class flushes it.
        }
      };
    }

    private void flushAll() {
      try {
        redis.execInContainer("redis-cli", "FLUSHALL");
      } catch (Exception e) {
        throw new IllegalStateException("could not flush Redis", e);
      }
    }
  }
}
