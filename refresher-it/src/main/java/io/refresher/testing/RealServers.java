package io.refresher.testing;

import io.refresher.embedded.EmbeddedPostgreSql;
import io.refresher.embedded.EmbeddedRedis;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Comparator;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.PostgreSQLContainer;
import org.testcontainers.utility.DockerImageName;

/**
 * Real Redis and PostgreSQL servers for integration tests: Testcontainers where a Docker engine is
 * available (and {@code CI} is not {@code true}), otherwise embedded servers started from Maven
 * artifacts. Choose explicitly with {@code -Drefresher.test.servers=embedded|containers}.
 *
 * <p>One PostgreSQL server is shared by the whole test run; every test class gets its own database.
 * Every test class gets its own Redis too: a new embedded process (cheap; stopped when the test
 * JVM exits, if the test does not close it), or a flushed container. Only embedded Redis processes
 * can be killed, frozen and restarted ({@link TestRedis#supportsProcessFaults()}).
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

  /** A Redis for one test class, without persistence. Close it when done. */
  public static synchronized TestRedis newRedis() {
    return backend().newRedis();
  }

  /**
   * A Redis for one test class that can {@link TestRedis#restartKeepingData() restart with its
   * data}: an embedded server keeping its snapshot in a temporary directory, deleted on close. On
   * the Testcontainers backend, the same shared Redis as {@link #newRedis()}, without process
   * faults. Close it when done.
   */
  public static synchronized TestRedis newPersistentRedis() {
    return backend().newPersistentRedis();
  }

  private static Backend backend() {
    if (backend == null) {
      String choice = System.getProperty("refresher.test.servers", "auto");
      // In CI every test must run: the process-fault tests skip on containers, so CI takes the
      // embedded servers even where a Docker engine answers.
      boolean containers =
          "containers".equals(choice) || ("auto".equals(choice) && !onCi() && dockerAvailable());
      backend = containers ? new ContainerBackend() : new EmbeddedBackend();
      LOG.info("integration tests run on {} servers", containers ? "Testcontainers" : "embedded");
    }
    return backend;
  }

  private static boolean onCi() {
    return "true".equalsIgnoreCase(System.getenv("CI"));
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

    TestRedis newPersistentRedis();
  }

  private static final class EmbeddedBackend implements Backend {
    /** Started by the first test that needs a database (tests of Redis alone do not). */
    private EmbeddedPostgreSql postgres;

    @Override
    public TestDatabase newDatabase(String prefix) {
      if (postgres == null) {
        postgres = EmbeddedPostgreSql.start();
        Runtime.getRuntime().addShutdownHook(new Thread(postgres::close, "embedded-postgres-stop"));
      }
      return new TestDatabase(
          postgres.createDatabase(prefix), EmbeddedPostgreSql.USER, EmbeddedPostgreSql.PASSWORD);
    }

    @Override
    public TestRedis newRedis() {
      return stoppedAtExit(new EmbeddedTestRedis(EmbeddedRedis.start(), null));
    }

    @Override
    public TestRedis newPersistentRedis() {
      Path dataDirectory;
      try {
        dataDirectory = Files.createTempDirectory("refresher-redis-data-");
      } catch (IOException e) {
        throw new UncheckedIOException("no temporary directory for Redis data", e);
      }
      return stoppedAtExit(new EmbeddedTestRedis(EmbeddedRedis.startPersistent(dataDirectory), dataDirectory));
    }

    private static TestRedis stoppedAtExit(TestRedis redis) {
      Runtime.getRuntime().addShutdownHook(new Thread(redis::close, "embedded-redis-stop"));
      return redis;
    }
  }

  /** An embedded Redis process: all the faults of {@link TestRedis} are real. */
  private static final class EmbeddedTestRedis implements TestRedis {
    private final EmbeddedRedis redis;
    private final Path dataDirectory;

    EmbeddedTestRedis(EmbeddedRedis redis, Path dataDirectory) {
      this.redis = redis;
      this.dataDirectory = dataDirectory;
    }

    @Override
    public String url() {
      return redis.url();
    }

    @Override
    public void loseData() {
      redis.restart();
    }

    @Override
    public boolean supportsProcessFaults() {
      return true;
    }

    @Override
    public void killProcess() {
      redis.kill();
    }

    @Override
    public void startAgainEmpty() {
      redis.startAgainEmpty();
    }

    @Override
    public void freeze() {
      redis.freeze();
    }

    @Override
    public void thaw() {
      redis.thaw();
    }

    @Override
    public void killClientConnections() {
      redis.killClientConnections();
    }

    @Override
    public void saveAndKill() {
      requirePersistence("saveAndKill");
      redis.save();
      redis.kill();
    }

    @Override
    public void startAgainWithData() {
      requirePersistence("startAgainWithData");
      redis.startAgain();
    }

    private void requirePersistence(String operation) {
      if (dataDirectory == null) {
        throw new IllegalStateException(
            operation + ": this Redis has no persistence; get one from RealServers.newPersistentRedis()");
      }
    }

    @Override
    public void restartKeepingData() {
      if (dataDirectory == null) {
        throw new IllegalStateException(
            "restartKeepingData: this Redis has no persistence; get one from RealServers.newPersistentRedis()");
      }
      redis.restartKeepingData();
    }

    @Override
    public void close() {
      redis.close();
      if (dataDirectory != null) {
        deleteRecursively(dataDirectory);
      }
    }

    private static void deleteRecursively(Path directory) {
      if (!Files.exists(directory)) {
        return;
      }
      try (Stream<Path> paths = Files.walk(directory)) {
        for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
          Files.deleteIfExists(path);
        }
      } catch (IOException e) {
        LOG.warn("could not delete the Redis data in {}", directory, e);
      }
    }
  }

  private static final class ContainerBackend implements Backend {
    private final PostgreSQLContainer<?> postgres =
        new PostgreSQLContainer<>(DockerImageName.parse("postgres:16-alpine"))
            .withCommand(
                "postgres", "-c", "shared_preload_libraries=pg_stat_statements", "-c", "pg_stat_statements.track=all",
                "-c", "pg_stat_statements.max=50000", "-c", "fsync=off", "-c",
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

    /**
     * The shared container, flushed: it cannot be restarted with its data (nor killed or frozen,
     * see {@link TestRedis#supportsProcessFaults()}) without breaking every other test class's URL.
     */
    @Override
    public TestRedis newPersistentRedis() {
      return newRedis();
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
