package io.refresher.persistence;

import java.net.SocketTimeoutException;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.InstantSource;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds out, every interval, whether the service's PostgreSQL answers: one {@code SELECT 1} on a
 * connection of its own, kept between probes, each attempt bounded by the connection's own
 * timeouts. The result goes into {@link DatabaseAvailability}. Failure semantics: every error is
 * caught and becomes the outage's cause; the probe itself never stops until {@link #stop()}.
 *
 * <p>Why a probe and not the requests' own failures: a request learns of an outage only after
 * waiting out the pool's {@code connectionTimeout}, and a frozen server may never answer it at
 * all; the probe waits at most its timeout, on its own thread, and knows when the database is back
 * without letting a request try first.
 *
 * <p>A failure on the kept connection is retried once, at once, on a new connection unless it was
 * a timeout: a terminated backend ({@code pg_terminate_backend}, a restarted pooler) breaks only
 * that connection, and the database is still there. A timeout means nothing answered; a second
 * attempt would only double the time to notice.
 */
public final class DatabaseProbe {

  private static final Logger LOG = LoggerFactory.getLogger(DatabaseProbe.class);

  /** Opens the probe's connection, with its timeouts already set. */
  @FunctionalInterface
  public interface ConnectionOpener {
    Connection open() throws SQLException;
  }

  private final ConnectionOpener opener;
  private final DatabaseAvailability availability;
  private final Duration interval;
  private final InstantSource clock;
  private final ScheduledExecutorService probes;
  private ScheduledExecutorService thread;
  private Connection connection;

  /** @param thread the one thread the probes run on; shut down by {@link #stop()} */
  public DatabaseProbe(
      ConnectionOpener opener,
      DatabaseAvailability availability,
      Duration interval,
      InstantSource clock,
      ScheduledExecutorService thread) {
    this.probes = thread;
    this.opener = opener;
    this.availability = availability;
    this.interval = interval;
    this.clock = clock;
  }

  public synchronized void start() {
    if (thread != null) {
      return;
    }
    thread = probes;
    thread.scheduleWithFixedDelay(this::probeSafely, 0, interval.toMillis(), TimeUnit.MILLISECONDS);
  }

  public synchronized void stop() throws InterruptedException {
    if (thread == null) {
      return;
    }
    thread.shutdownNow();
    thread.awaitTermination(interval.toMillis() + 5_000, TimeUnit.MILLISECONDS);
    thread = null;
    closeConnection();
  }

  private void probeSafely() {
    try {
      probe();
    } catch (RuntimeException e) {
      // A scheduled task that throws is never run again: this one must keep running.
      record(e.toString());
    }
  }

  /** One probe; package-private for tests, which call it without the schedule. */
  void probe() {
    boolean kept = connection != null;
    try {
      selectOne();
      recordUp();
    } catch (SQLException first) {
      closeConnection();
      if (kept && !timedOut(first)) {
        try {
          selectOne();
          recordUp();
          return;
        } catch (SQLException second) {
          closeConnection();
          record(second.getMessage());
          return;
        }
      }
      record(first.getMessage());
    }
  }

  private void selectOne() throws SQLException {
    if (connection == null) {
      connection = opener.open();
    }
    try (Statement statement = connection.createStatement();
        ResultSet rs = statement.executeQuery("SELECT 1")) {
      rs.next();
    }
  }

  private void recordUp() {
    availability.markUp().ifPresent(outage ->
        LOG.info(
            "PostgreSQL answers again after {} ms; requests that need the registry go to it again",
            clock.millis() - outage.since().toEpochMilli()));
  }

  private void record(String cause) {
    if (availability.markDown(cause)) {
      LOG.warn(
          "PostgreSQL unavailable ({}): readiness down; requests that need the registry answer 503 at once "
              + "until a probe succeeds (every {} ms)",
          cause,
          interval.toMillis());
    }
  }

  private static boolean timedOut(SQLException e) {
    for (Throwable cause = e; cause != null; cause = cause.getCause()) {
      if (cause instanceof SocketTimeoutException) {
        return true;
      }
    }
    return false;
  }

  private void closeConnection() {
    Connection open = connection;
    connection = null;
    if (open != null) {
      try {
        open.close();
      } catch (SQLException | RuntimeException e) {
        // Broken already; nothing to release on the server side that it has not dropped itself.
      }
    }
  }
}
