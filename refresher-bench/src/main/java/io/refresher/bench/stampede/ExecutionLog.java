package io.refresher.bench.stampede;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/**
 * Every source execution of a run, as the database reports it: a dedicated connection LISTENs on
 * {@link SourceFunction#CHANNEL} and records each notification {@code bench_compute} sends
 * (strategy, key, start and end time by the database's clock).
 */
final class ExecutionLog implements AutoCloseable {

  /**
   * One completed execution.
   *
   * @param strategy the strategy id ({@code f} for both the service and Refresher's client loader)
   * @param caller who ran it: {@code reader}, or for (f) {@code service} / {@code client}
   */
  record Execution(String strategy, String caller, int rank, long startMicros, long endMicros) {}

  private final Connection connection;
  private final String run;
  private final List<Execution> executions = new ArrayList<>();
  private final Thread listener;
  private final CountDownLatch listening = new CountDownLatch(1);
  private volatile boolean stopping;
  private volatile Exception failure;
  private long unparsed;

  ExecutionLog(String jdbcUrl, String run) throws SQLException {
    this.run = run;
    this.connection = SourceFunction.connect(jdbcUrl);
    try (Statement sql = connection.createStatement()) {
      sql.execute("LISTEN " + SourceFunction.CHANNEL);
    }
    listener = new Thread(this::listen, "stampede-executions-" + run);
    listener.setDaemon(true);
    listener.start();
  }

  private void listen() {
    try {
      PGConnection pg = connection.unwrap(PGConnection.class);
      listening.countDown();
      while (!stopping) {
        PGNotification[] batch = pg.getNotifications(100);
        if (batch == null) {
          continue;
        }
        synchronized (this) {
          for (PGNotification notification : batch) {
            add(notification.getParameter());
          }
        }
      }
    } catch (SQLException e) {
      if (!stopping) {
        failure = e;
      }
    }
  }

  private void add(String payload) {
    String[] parts = payload.split(" ");
    if (!parts[0].equals(run)) {
      return; // another run's, or the calibration's
    }
    if (parts.length != 5) {
      unparsed++;
      return;
    }
    String label = parts[1];
    int tilde = label.indexOf('~');
    String strategy = tilde < 0 ? label : label.substring(0, tilde);
    String caller = tilde < 0 ? (strategy.equals(StrategyKind.REFRESHER.id()) ? "service" : "reader") : label.substring(tilde + 1);
    try {
      executions.add(
          new Execution(strategy, caller, Integer.parseInt(parts[2]), Long.parseLong(parts[3]), Long.parseLong(parts[4])));
    } catch (NumberFormatException e) {
      unparsed++;
    }
  }

  /** A copy of the executions so far. */
  synchronized List<Execution> executions() {
    return new ArrayList<>(executions);
  }

  synchronized long unparsed() {
    return unparsed;
  }

  Exception failure() {
    return failure;
  }

  /** Waits until the listener thread polls, so that nothing sent from now on is missed. */
  void awaitListening() throws InterruptedException {
    listening.await(5, TimeUnit.SECONDS);
  }

  /** Lets notifications already sent arrive (they are delivered at commit), then stops. */
  @Override
  public void close() throws Exception {
    TimeUnit.MILLISECONDS.sleep(500);
    stopping = true;
    listener.join(2_000);
    connection.close();
  }
}
