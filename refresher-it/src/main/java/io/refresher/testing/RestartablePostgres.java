package io.refresher.testing;

import io.refresher.embedded.EmbeddedPostgreSql;
import io.refresher.embedded.FreePorts;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A PostgreSQL server of one test class that suffers the faults of production: {@link #stop()
 * stopped} (a fast shutdown: sessions are terminated) and {@link #startAgain() started again} on
 * the same port from the same data directory, its backends {@link #terminateBackends(String)
 * terminated} ({@code pg_terminate_backend}), and {@link #freeze() frozen} (SIGSTOP of the
 * postmaster and all its processes: a VM pause; the kernel still accepts connections, nothing
 * answers) and {@link #thaw() thawed}. The shared server of {@link RealServers} never does.
 *
 * <p>Embedded only (zonky's binaries), loopback, POSIX signals. The postmaster's pid is the first
 * line of {@code postmaster.pid} in the data directory. A frozen server is thawed and stopped when
 * the JVM exits, so a failed test leaves nothing behind.
 */
public final class RestartablePostgres implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(RestartablePostgres.class);
  private static final Duration TIMEOUT = Duration.ofSeconds(10);
  private static final AtomicInteger DATABASES = new AtomicInteger();

  private final Path dataDirectory;
  private final int port;
  private volatile EmbeddedPostgres server;
  /** Processes stopped by {@link #freeze()}, postmaster first; empty while not frozen. */
  private final List<ProcessHandle> frozen = new ArrayList<>();

  private RestartablePostgres(Path dataDirectory, int port) {
    this.dataDirectory = dataDirectory;
    this.port = port;
    Runtime.getRuntime().addShutdownHook(new Thread(this::close, "restartable-postgres-stop"));
  }

  public static RestartablePostgres start() {
    Path directory;
    try {
      directory = Files.createTempDirectory("refresher-pg-data-");
    } catch (IOException e) {
      throw new UncheckedIOException("no temporary directory for PostgreSQL data", e);
    }
    RestartablePostgres postgres = new RestartablePostgres(directory, FreePorts.next());
    postgres.startAgain();
    return postgres;
  }

  public int port() {
    return port;
  }

  /** A fresh database on this server, as {@link RealServers#newDatabase(String)} gives on the shared one. */
  public TestDatabase createDatabase(String prefix) {
    String name = prefix.toLowerCase().replaceAll("[^a-z0-9_]", "_") + "_" + DATABASES.incrementAndGet();
    execute("postgres", "CREATE DATABASE " + name);
    String url = "jdbc:postgresql://127.0.0.1:" + port + "/" + name;
    TestDatabase database = new TestDatabase(url, EmbeddedPostgreSql.USER, EmbeddedPostgreSql.PASSWORD);
    database.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
    return database;
  }

  /** {@code pg_terminate_backend} of every session on {@code database} (but this one); returns how many. */
  public int terminateBackends(String database) {
    try (Connection connection = connect("postgres");
        PreparedStatement statement =
            connection.prepareStatement(
                "SELECT count(*) FILTER (WHERE pg_terminate_backend(pid)) FROM pg_stat_activity "
                    + "WHERE datname = ? AND pid <> pg_backend_pid()")) {
      statement.setString(1, database);
      try (ResultSet rs = statement.executeQuery()) {
        rs.next();
        int terminated = rs.getInt(1);
        LOG.info("PostgreSQL :{} terminated {} sessions of {}", port, terminated, database);
        return terminated;
      }
    } catch (SQLException e) {
      throw new IllegalStateException("pg_terminate_backend failed: " + e.getMessage(), e);
    }
  }

  /** Sessions open on {@code database} right now, by {@code application_name} (from {@code pg_stat_activity}). */
  public Map<String, Integer> sessions(String database) {
    try (Connection connection = connect("postgres");
        PreparedStatement statement =
            connection.prepareStatement(
                "SELECT application_name, count(*) FROM pg_stat_activity "
                    + "WHERE datname = ? AND pid <> pg_backend_pid() GROUP BY application_name")) {
      statement.setString(1, database);
      Map<String, Integer> sessions = new TreeMap<>();
      try (ResultSet rs = statement.executeQuery()) {
        while (rs.next()) {
          sessions.put(rs.getString(1), rs.getInt(2));
        }
      }
      return sessions;
    } catch (SQLException e) {
      throw new IllegalStateException("could not count sessions: " + e.getMessage(), e);
    }
  }

  /**
   * A fast shutdown ({@code pg_ctl stop -m fast}): sessions are terminated, then the server is
   * gone and connections are refused until {@link #startAgain()}.
   */
  public synchronized void stop() {
    EmbeddedPostgres running = server;
    if (running == null) {
      return;
    }
    thaw();
    try {
      running.close();
    } catch (IOException e) {
      throw new UncheckedIOException("could not stop PostgreSQL :" + port, e);
    }
    server = null;
    LOG.info("PostgreSQL :{} stopped", port);
  }

  /** Starts the server (again) on the same port from the same data directory: every database is still there. */
  public synchronized void startAgain() {
    if (server != null) {
      throw new IllegalStateException("PostgreSQL :" + port + " is running; stop() it first");
    }
    try {
      server =
          EmbeddedPostgres.builder()
              .setDataDirectory(dataDirectory)
              .setCleanDataDirectory(false)
              .setPort(port)
              .setServerConfig("max_connections", "300")
              .setServerConfig("fsync", "off")
              .setServerConfig("synchronous_commit", "off")
              .setServerConfig("full_page_writes", "off")
              .setServerConfig("shared_preload_libraries", "pg_stat_statements")
              .start();
    } catch (IOException e) {
      throw new UncheckedIOException("could not start PostgreSQL :" + port, e);
    }
    LOG.info("PostgreSQL :{} started (postmaster pid {})", port, postmasterPid());
  }

  /**
   * SIGSTOPs the postmaster and every process it started (backends, background workers): the host
   * stalls. The kernel still completes TCP handshakes, so connecting seems to work, but no startup
   * reply, no query result and no cancel is ever answered until {@link #thaw()}. Always thaw in a
   * {@code finally}.
   */
  public synchronized void freeze() {
    if (!frozen.isEmpty()) {
      return;
    }
    ProcessHandle postmaster =
        ProcessHandle.of(postmasterPid()).orElseThrow(() -> new IllegalStateException("the postmaster is gone"));
    // The postmaster first, so it starts no new backend while the others are being stopped; then
    // its processes, until none is left running (a backend may have been forking meanwhile).
    signal("STOP", postmaster);
    frozen.add(postmaster);
    awaitStopped(postmaster);
    boolean more = true;
    while (more) {
      more = false;
      for (ProcessHandle child : postmaster.descendants().toList()) {
        if (!frozen.contains(child) && child.isAlive()) {
          // A short-lived backend may exit before the signal reaches it: nothing to stop then.
          if (trySignal("STOP", child)) {
            frozen.add(child);
            awaitStopped(child);
          }
          more = true;
        }
      }
    }
    LOG.info("PostgreSQL :{} frozen ({} processes)", port, frozen.size());
  }

  /** SIGCONTs what {@link #freeze()} stopped. Does nothing if not frozen, so it is safe in a {@code finally}. */
  public synchronized void thaw() {
    if (frozen.isEmpty()) {
      return;
    }
    for (ProcessHandle process : frozen) {
      trySignal("CONT", process);
    }
    LOG.info("PostgreSQL :{} thawed ({} processes)", port, frozen.size());
    frozen.clear();
  }

  /** Thaws, stops and deletes the data directory. Idempotent. */
  @Override
  public synchronized void close() {
    try {
      stop();
    } finally {
      deleteRecursively(dataDirectory);
    }
  }

  private long postmasterPid() {
    try {
      String first = Files.readAllLines(dataDirectory.resolve("postmaster.pid"), StandardCharsets.UTF_8).get(0);
      return Long.parseLong(first.trim());
    } catch (IOException e) {
      throw new UncheckedIOException("no postmaster.pid in " + dataDirectory, e);
    }
  }

  private void execute(String database, String sql) {
    try (Connection connection = connect(database);
        Statement statement = connection.createStatement()) {
      statement.execute(sql);
    } catch (SQLException e) {
      throw new IllegalStateException("SQL failed on PostgreSQL :" + port + ": " + e.getMessage(), e);
    }
  }

  private Connection connect(String database) throws SQLException {
    return DriverManager.getConnection(
        "jdbc:postgresql://127.0.0.1:" + port + "/" + database, EmbeddedPostgreSql.USER, EmbeddedPostgreSql.PASSWORD);
  }

  private static void signal(String signal, ProcessHandle target) {
    if (!trySignal(signal, target)) {
      throw new IllegalStateException("process " + target.pid() + " is gone; cannot send SIG" + signal);
    }
  }

  /** Sends the signal; false if the process is gone. */
  private static boolean trySignal(String signal, ProcessHandle target) {
    if (!target.isAlive()) {
      return false;
    }
    List<String> command = List.of("kill", "-" + signal, Long.toString(target.pid()));
    try {
      Process kill = new ProcessBuilder(command).redirectErrorStream(true).start();
      String output = new String(kill.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
      if (!kill.waitFor(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
        kill.destroyForcibly();
        throw new IllegalStateException(String.join(" ", command) + " did not finish");
      }
      if (kill.exitValue() != 0) {
        if (!target.isAlive()) {
          return false;
        }
        throw new IllegalStateException(String.join(" ", command) + " failed (" + kill.exitValue() + "): " + output);
      }
      return true;
    } catch (IOException e) {
      throw new UncheckedIOException("could not run kill -" + signal, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted sending SIG" + signal, e);
    }
  }

  /** Waits until {@code /proc/<pid>/stat} shows the process stopped ('T'). */
  private static void awaitStopped(ProcessHandle target) {
    Path stat = Path.of("/proc", Long.toString(target.pid()), "stat");
    long deadline = System.nanoTime() + TIMEOUT.toNanos();
    while (Files.isReadable(stat)) {
      String line;
      try {
        line = Files.readString(stat);
      } catch (IOException e) {
        return; // gone meanwhile
      }
      // "pid (comm) state ...": comm may contain spaces and parentheses, the last ')' ends it.
      char state = line.charAt(line.lastIndexOf(')') + 2);
      // 'Z': a backend that exited just now, not yet reaped by its (stopped) postmaster.
      if (state == 'T' || state == 't' || state == 'Z' || state == 'X') {
        return;
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("process " + target.pid() + " still in state " + state + " after SIGSTOP");
      }
      java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
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
      LOG.warn("could not delete the PostgreSQL data in {}", directory, e);
    }
  }
}
