package io.refresher.changes;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.InstantSource;
import io.refresher.refresh.ChangeNotification;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Listens for change notifications on one PostgreSQL datasource, on a connection of its own (not
 * from a pool: it is held for as long as the replica runs, and LISTEN and session advisory locks
 * belong to a session), and hands them to the domain, as many at once as the driver has read.
 *
 * <p><b>One listener across replicas.</b> Every replica runs this loop, but only the one holding
 * a session-level advisory lock ({@link LeaderLock}) issues {@code LISTEN}; the others are standbys
 * that try the lock every {@code reconnectDelay}. So each change runs its source once, not once per
 * replica. The lock is taken on the very connection that listens, so leadership and listening
 * cannot come apart: when that connection dies (the replica crashed, was stopped, or its session
 * was terminated), PostgreSQL releases the lock, and a standby takes over within one try. No lease
 * to renew, no clock to trust.
 *
 * <p><b>A frozen leader</b> (a stopped process, a long pause) keeps its session, hence the lock, and
 * no standby takes over: PostgreSQL queues the notifications for its session, and it applies them,
 * coalesced, when it resumes. Its notifications are late, not lost, unless the queue fills (8 GB by
 * default; {@code pg_notification_queue_usage()}); a replica that never resumes is ended by its
 * liveness probe, which closes the session. A leader whose machine or network is gone is found by
 * the server's TCP keepalives, which this session sets short ({@link #KEEPALIVE_SETTINGS}), and
 * loses the lock within about half a minute.
 *
 * <p><b>Failures.</b> Any error (the server restarted, the session was terminated, a keepalive
 * query timed out) closes the connection and opens a new one after {@code reconnectDelay},
 * doubling up to {@link #MAX_RECONNECT_DELAY} while attempts keep failing; it starts over once a
 * connection has answered a query.
 * PostgreSQL keeps no notifications for a session that is not listening: those sent while no
 * replica listens are lost, and the keys' own refresh cycles bound the staleness they cause.
 *
 * <p><b>Stop.</b> {@link #stop} aborts the connection, which ends a wait for notifications at once.
 */
public final class ChangeListener implements Runnable {

  private static final Logger LOG = LoggerFactory.getLogger(ChangeListener.class);

  /** The longest wait before the connection is opened again. */
  static final Duration MAX_RECONNECT_DELAY = Duration.ofSeconds(30);
  /** One wait for notifications; short, so that a stop or a keepalive is never far off. */
  private static final int WAIT_MILLIS = 500;
  /** A silent connection is checked this often: a half-open one shows no error until written to. */
  private static final long KEEPALIVE_EVERY_MILLIS = 10_000;
  /** See {@link LeaderSessions#KEEPALIVE_SETTINGS}. */
  static final String KEEPALIVE_SETTINGS = LeaderSessions.KEEPALIVE_SETTINGS;

  /** Opens the listening connection (autocommit, outside the pools). */
  @FunctionalInterface
  public interface Connector {
    Connection open() throws SQLException;
  }

  /**
   * Where notifications go: the domain's handler, a batch at a time (in the order they were sent),
   * and an empty batch whenever a wait for notifications came back with none. Called on this
   * listener's thread: while it runs, no notification is read (they wait in PostgreSQL's queue),
   * which is how a handler that cannot keep up slows the listener down instead of dropping.
   */
  @FunctionalInterface
  public interface Sink {
    void onNotifications(List<ChangeNotification> notifications);
  }

  private final String datasource;
  private final List<String> channels;
  private final Connector connector;
  private final LeaderLock lock;
  private final Duration reconnectDelay;
  private final Sink sink;

  private final AtomicBoolean listening = new AtomicBoolean();
  private final CountDownLatch stopping = new CountDownLatch(1);
  private final CountDownLatch ended = new CountDownLatch(1);
  private volatile boolean running = true;
  private volatile Connection current;
  /** The current connection answered a query: the reconnect delay starts over after its failure. */
  private boolean healthy;
  private final InstantSource clock;

  /**
   * @param channels lower-case identifiers (checked by the configuration), listened to unquoted
   * @param clock this machine's: when the session has been quiet long enough for a keepalive
   */
  public ChangeListener(
      String datasource,
      Set<String> channels,
      Connector connector,
      LeaderLock lock,
      Duration reconnectDelay,
      Sink sink,
      InstantSource clock) {
    this.clock = clock;
    this.datasource = datasource;
    this.channels = List.copyOf(channels);
    this.connector = connector;
    this.lock = lock;
    this.reconnectDelay = reconnectDelay;
    this.sink = sink;
  }

  /** Whether this replica is the one listening on this datasource now. */
  public boolean isListening() {
    return listening.get();
  }

  /** The channels this listener listens on while it leads. */
  public List<String> channels() {
    return channels;
  }

  public String datasource() {
    return datasource;
  }

  @Override
  public void run() {
    long delay = reconnectDelay.toMillis();
    try {
      while (running) {
        Connection connection = null;
        boolean opened = false;
        healthy = false;
        try {
          connection = connector.open();
          current = connection;
          opened = true;
          if (!awaitLeadership(connection)) {
            return;
          }
          listen(connection);
        } catch (SQLException | RuntimeException e) {
          if (!running) {
            return;
          }
          if (healthy) {
            // the connection worked for a while: this is a new failure, not one more of a streak
            delay = reconnectDelay.toMillis();
          }
          logFailure(opened, e, delay);
          if (stopping.await(delay, TimeUnit.MILLISECONDS)) {
            return;
          }
          delay = Math.min(delay * 2, MAX_RECONNECT_DELAY.toMillis());
        } finally {
          listening.set(false);
          current = null;
          LeaderSessions.closeQuietly(connection);
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      ended.countDown();
    }
  }

  /**
   * Takes the advisory lock, trying again every reconnect delay while another replica holds it.
   * Returns false when stopped first.
   */
  private boolean awaitLeadership(Connection connection) throws SQLException, InterruptedException {
    LeaderSessions.shortenKeepalives(connection, "change-notification");
    boolean standbyLogged = false;
    while (running) {
      boolean acquired = lock.tryAcquire(connection);
      healthy = true;
      if (acquired) {
        return true;
      }
      if (!standbyLogged) {
        LOG.info(
            "standby for change notifications of datasource '{}': another replica listens (it holds advisory lock {}); trying every {} ms",
            datasource,
            lock,
            reconnectDelay.toMillis());
        standbyLogged = true;
      }
      if (stopping.await(reconnectDelay.toMillis(), TimeUnit.MILLISECONDS)) {
        return false;
      }
    }
    return false;
  }

  /** LISTENs, then hands notifications over until the connection fails or the listener stops. */
  private void listen(Connection connection) throws SQLException {
    try (Statement statement = connection.createStatement()) {
      for (String channel : channels) {
        statement.execute("LISTEN " + channel);
      }
    }
    listening.set(true);
    LOG.info("listening for changes on channels {} of datasource '{}' as the leader (advisory lock {})", channels, datasource, lock);
    PGConnection pg = connection.unwrap(PGConnection.class);
    long lastHeardMillis = clock.millis();
    while (running) {
      PGNotification[] notifications = pg.getNotifications(WAIT_MILLIS);
      long now = clock.millis();
      if (notifications != null && notifications.length > 0) {
        lastHeardMillis = now;
        deliver(notifications);
      } else {
        deliver(new PGNotification[0]);
        if (now - lastHeardMillis >= KEEPALIVE_EVERY_MILLIS) {
          LeaderSessions.keepalive(connection);
          lastHeardMillis = now;
        }
      }
    }
  }

  private void deliver(PGNotification[] notifications) {
    List<ChangeNotification> batch = new ArrayList<>(notifications.length);
    for (PGNotification notification : notifications) {
      batch.add(new ChangeNotification(notification.getName(), notification.getParameter()));
    }
    try {
      sink.onNotifications(batch);
    } catch (RuntimeException e) {
      // a bug in one batch's handling must not stop the listening
      LOG.error("{} notifications on datasource '{}' could not be handled", batch.size(), datasource, e);
    }
  }

  private void logFailure(boolean opened, Exception e, long delay) {
    if (listening.get()) {
      LOG.warn(
          "lost the change-notification connection to datasource '{}' ({}): notifications sent until a replica listens again are lost"
              + " (PostgreSQL keeps none for absent listeners; the keys' refresh cycles bound the staleness); reconnecting in {} ms",
          datasource,
          e.getMessage(),
          delay);
    } else if (opened) {
      LOG.warn(
          "change-notification connection to datasource '{}' failed while on standby ({}); reconnecting in {} ms",
          datasource,
          e.getMessage(),
          delay);
    } else {
      LOG.warn(
          "cannot open the change-notification connection to datasource '{}' ({}); retrying in {} ms",
          datasource,
          e.getMessage(),
          delay);
    }
  }

  /**
   * Ends the loop: wakes a standby's wait and aborts the connection (which ends a wait for
   * notifications at once, and releases the lock on the server). Waits up to {@code grace} for the
   * loop to end.
   */
  public void stop(Duration grace) throws InterruptedException {
    boolean wasListening = listening.get();
    running = false;
    stopping.countDown();
    Connection connection = current;
    if (connection != null) {
      try {
        connection.abort(Runnable::run);
      } catch (SQLException | RuntimeException e) {
        LOG.debug("aborting the change-notification connection to datasource '{}' failed: {}", datasource, e.getMessage());
      }
    }
    if (!ended.await(grace.toMillis(), TimeUnit.MILLISECONDS)) {
      LOG.warn("change listener of datasource '{}' did not end within {} ms", datasource, grace.toMillis());
    } else if (wasListening) {
      LOG.info("stopped listening for changes on datasource '{}'; a standby replica takes over", datasource);
    }
  }

  /** For logs: which channels, on which datasource. */
  @Override
  public String toString() {
    return "ChangeListener{" + datasource + " " + new ArrayList<>(channels) + "}";
  }
}
