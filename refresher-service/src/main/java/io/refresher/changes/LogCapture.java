package io.refresher.changes;

import io.debezium.engine.DebeziumEngine;
import io.debezium.engine.RecordChangeEvent;
import io.debezium.embedded.Connect;
import io.debezium.engine.format.ChangeEventFormat;
import io.refresher.refresh.CaptureHandler;
import io.refresher.refresh.CaptureOffsets;
import io.refresher.refresh.RowChange;
import java.io.IOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.connect.source.SourceRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads one datasource's row changes from its write-ahead log — logical replication through the
 * {@code pgoutput} plugin, decoded by Debezium's embedded engine and PostgreSQL connector — and
 * hands them to the domain ({@link CaptureHandler}), a batch at a time, acknowledging a batch only
 * once it is applied.
 *
 * <p><b>One reader across replicas.</b> Every replica runs this loop; only the one holding a
 * session-level advisory lock ({@link LeaderLock#ofCapture}, on a connection of its own) runs the
 * engine, and the replication slot takes one reader at a time anyway. Standbys try the lock every
 * {@code retryDelay}. When the reader's process ends (stopped, killed), PostgreSQL releases its lock
 * and its slot together, and a standby reads on within one try plus the engine's start (about 2
 * s). A frozen reader keeps both: nothing is lost, and it goes on when it resumes (after more than
 * {@code wal_sender_timeout}, 60 s by default, the server ends its replication session, and it
 * resumes from its last acknowledged position). A reader whose host is gone loses its lock to the
 * server's TCP keepalives ({@link LeaderSessions#KEEPALIVE_SETTINGS}, about 25 s) and its slot to
 * {@code wal_sender_timeout}.
 *
 * <p><b>Nothing lost.</b> The engine's offsets are kept in the service's PostgreSQL ({@link
 * CaptureOffsetStore}) and saved only for records marked processed, which a batch's records are
 * only once {@link CaptureHandler#apply} says every change in it is applied; the slot's confirmed
 * position is advanced after that save. A reader that dies between applying a batch and saving its
 * offset leaves that batch to be read and applied again: at least once.
 *
 * <p><b>Stop.</b> The batch being applied may finish for a short grace (so a rolling update applies
 * no change twice), then the engine closes and the leader session is aborted.
 */
public final class LogCapture implements Runnable {

  private static final Logger LOG = LoggerFactory.getLogger(LogCapture.class);
  /** The leader session is checked this often while the engine reads: a dead one stops the engine. */
  private static final Duration CHECK_EVERY = Duration.ofSeconds(2);
  static final Duration MAX_RETRY_DELAY = Duration.ofSeconds(30);
  /** How long a stop lets the batch being applied finish. */
  static final Duration DRAIN_GRACE = Duration.ofSeconds(3);

  /** What the reader reports, for the metrics. */
  public interface Events {
    default void applied(int rowChanges) {}

    Events NONE = new Events() {};
  }

  private final String datasource;
  private final String slot;
  private final String publication;
  private final ChangeListener.Connector connector;
  private final LeaderLock lock;
  private final Properties engineProperties;
  private final CaptureOffsets offsets;
  private final CaptureHandler handler;
  private final Duration retryDelay;
  private final ExecutorService engineThreads;
  private final Events events;

  private final AtomicBoolean reading = new AtomicBoolean();
  private final CountDownLatch stopping = new CountDownLatch(1);
  private final CountDownLatch ended = new CountDownLatch(1);
  private final AtomicInteger batchesInFlight = new AtomicInteger();
  private final Set<String> warnedTruncations = ConcurrentHashMap.newKeySet();
  private volatile boolean running = true;
  private volatile boolean draining;
  private volatile Connection leaderSession;
  private final AtomicReference<DebeziumEngine<RecordChangeEvent<SourceRecord>>> engine = new AtomicReference<>();

  /**
   * @param engineProperties the connector's settings (connection, slot, publication, tables),
   *     without the offset store, which this class sets
   * @param engineThreads runs the engine (one thread per run)
   */
  public LogCapture(
      String datasource,
      String slot,
      String publication,
      ChangeListener.Connector connector,
      LeaderLock lock,
      Properties engineProperties,
      CaptureOffsets offsets,
      CaptureHandler handler,
      Duration retryDelay,
      ExecutorService engineThreads,
      Events events) {
    this.datasource = datasource;
    this.slot = slot;
    this.publication = publication;
    this.connector = connector;
    this.lock = lock;
    this.engineProperties = engineProperties;
    this.offsets = offsets;
    this.handler = handler;
    this.retryDelay = retryDelay;
    this.engineThreads = engineThreads;
    this.events = events;
  }

  /** Whether this replica reads the datasource's log now. */
  public boolean isReading() {
    return reading.get();
  }

  /** The replication slot it reads. */
  public String slot() {
    return slot;
  }

  public String datasource() {
    return datasource;
  }

  @Override
  public void run() {
    long delay = retryDelay.toMillis();
    try {
      while (running) {
        Connection session = null;
        boolean readSome = false;
        try {
          session = connector.open();
          leaderSession = session;
          if (!awaitLeadership(session)) {
            return;
          }
          Optional<String> problem = setUpProblem(session);
          if (problem.isPresent()) {
            LOG.error(
                "cannot read the change log of datasource '{}': {}; trying again in {} ms (see docs/sources.md, \"Change capture\")",
                datasource,
                problem.get(),
                delay);
          } else {
            readSome = read(session);
            if (!running) {
              return;
            }
          }
        } catch (SQLException | RuntimeException e) {
          if (!running) {
            return;
          }
          LOG.warn(
              "change capture of datasource '{}' {} ({}); trying again in {} ms",
              datasource,
              reading.get() ? "lost its leader session" : "could not take the lead",
              e.getMessage(),
              delay);
        } finally {
          closeEngine();
          reading.set(false);
          leaderSession = null;
          LeaderSessions.closeQuietly(session);
        }
        if (readSome) {
          delay = retryDelay.toMillis();
        }
        if (stopping.await(delay, TimeUnit.MILLISECONDS)) {
          return;
        }
        delay = Math.min(delay * 2, MAX_RETRY_DELAY.toMillis());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      ended.countDown();
    }
  }

  private boolean awaitLeadership(Connection session) throws SQLException, InterruptedException {
    LeaderSessions.shortenKeepalives(session, "change capture's leader");
    boolean standbyLogged = false;
    while (running) {
      if (lock.tryAcquire(session)) {
        return true;
      }
      if (!standbyLogged) {
        LOG.info(
            "standby for the change log of datasource '{}': another replica reads it (it holds advisory lock {}); trying every {} ms",
            datasource,
            lock,
            retryDelay.toMillis());
        standbyLogged = true;
      }
      if (stopping.await(retryDelay.toMillis(), TimeUnit.MILLISECONDS)) {
        return false;
      }
    }
    return false;
  }

  /** What keeps the log from being read, in words an operator can act on; empty when nothing. */
  private Optional<String> setUpProblem(Connection session) throws SQLException {
    try (Statement statement = session.createStatement();
        ResultSet level = statement.executeQuery("SELECT current_setting('wal_level')")) {
      level.next();
      if (!"logical".equals(level.getString(1))) {
        return Optional.of("wal_level is '" + level.getString(1) + "', not 'logical' (set wal_level = logical and restart PostgreSQL)");
      }
    }
    try (PreparedStatement statement = session.prepareStatement("SELECT count(*) FROM pg_publication WHERE pubname = ?")) {
      statement.setString(1, publication);
      try (ResultSet found = statement.executeQuery()) {
        found.next();
        if (found.getLong(1) == 0) {
          return Optional.of(
              "publication '" + publication + "' does not exist (CREATE PUBLICATION " + publication + " FOR TABLE <the captured tables>)");
        }
      }
    }
    return Optional.empty();
  }

  /**
   * Runs the engine until it ends, the leader session fails or the capture stops.
   *
   * @return whether the engine ran for a while (a failure after that is a new one)
   */
  private boolean read(Connection session) throws SQLException, InterruptedException {
    String binding = "capture-" + datasource + "-" + UUID.randomUUID();
    CaptureOffsetStore.bind(binding, offsets);
    try {
      Properties properties = new Properties();
      properties.putAll(engineProperties);
      properties.setProperty("offset.storage", CaptureOffsetStore.class.getName());
      properties.setProperty(CaptureOffsetStore.BINDING, binding);
      CountDownLatch engineEnded = new CountDownLatch(1);
      AtomicReference<String> endedWhy = new AtomicReference<>();
      DebeziumEngine<RecordChangeEvent<SourceRecord>> started =
          DebeziumEngine.create(ChangeEventFormat.of(Connect.class))
              .using(properties)
              .using(
                  (success, message, error) -> {
                    endedWhy.set(error != null ? message + ": " + error : message);
                    engineEnded.countDown();
                  })
              .notifying(this::handleBatch)
              .build();
      engine.set(started);
      try {
        engineThreads.execute(started);
      } catch (RejectedExecutionException e) {
        return false;
      }
      reading.set(true);
      LOG.info("reading the change log of datasource '{}' as the leader (slot '{}', publication '{}', advisory lock {})", datasource, slot, publication, lock);
      long startedAt = System.nanoTime();
      while (running) {
        if (engineEnded.await(CHECK_EVERY.toMillis(), TimeUnit.MILLISECONDS)) {
          if (running) {
            LOG.warn("the change log reader of datasource '{}' ended: {}", datasource, endedWhy.get());
          }
          break;
        }
        LeaderSessions.keepalive(session);
      }
      return System.nanoTime() - startedAt > MAX_RETRY_DELAY.toNanos();
    } finally {
      closeEngine();
      CaptureOffsetStore.unbind(binding);
    }
  }

  private void handleBatch(List<RecordChangeEvent<SourceRecord>> records, DebeziumEngine.RecordCommitter<RecordChangeEvent<SourceRecord>> committer)
      throws InterruptedException {
    if (draining || !running) {
      return;
    }
    batchesInFlight.incrementAndGet();
    try {
      List<RowChange> changes = new ArrayList<>(records.size());
      for (RecordChangeEvent<SourceRecord> record : records) {
        RowChanges.of(record.record()).ifPresent(changes::add);
        RowChanges.truncatedTable(record.record()).ifPresent(this::warnTruncated);
      }
      if (!changes.isEmpty() && !handler.apply(changes)) {
        // stopping: nothing of this batch is acknowledged, the next reader reads it again
        return;
      }
      for (RecordChangeEvent<SourceRecord> record : records) {
        committer.markProcessed(record);
      }
      committer.markBatchFinished();
      events.applied(changes.size());
    } finally {
      batchesInFlight.decrementAndGet();
    }
  }

  private void warnTruncated(String table) {
    if (warnedTruncations.add(table)) {
      LOG.warn(
          "table {} of datasource '{}' was truncated: its rows' keys cannot be named from the log, and keep their values until their next refresh or TTL",
          table,
          datasource);
    }
  }

  private void closeEngine() {
    DebeziumEngine<RecordChangeEvent<SourceRecord>> running = engine.getAndSet(null);
    if (running != null) {
      try {
        running.close();
      } catch (IOException | RuntimeException e) {
        LOG.debug("closing the change log reader of datasource '{}' failed: {}", datasource, e.getMessage());
      }
    }
  }

  /**
   * Ends the loop: lets a batch being applied finish within {@link #DRAIN_GRACE}, then closes the
   * engine and aborts the leader session (releasing the lock and the slot). Waits up to {@code
   * grace} for the loop to end.
   */
  public void stop(Duration grace) throws InterruptedException {
    boolean wasReading = reading.get();
    draining = true;
    long drainUntil = System.nanoTime() + DRAIN_GRACE.toNanos();
    while (batchesInFlight.get() > 0 && System.nanoTime() < drainUntil) {
      Thread.sleep(20);
    }
    running = false;
    handler.stop();
    stopping.countDown();
    closeEngine();
    Connection session = leaderSession;
    if (session != null) {
      try {
        session.abort(Runnable::run);
      } catch (SQLException | RuntimeException e) {
        LOG.debug("aborting the capture's leader session of datasource '{}' failed: {}", datasource, e.getMessage());
      }
    }
    if (!ended.await(grace.toMillis(), TimeUnit.MILLISECONDS)) {
      LOG.warn("change capture of datasource '{}' did not end within {} ms", datasource, grace.toMillis());
    } else if (wasReading) {
      LOG.info("stopped reading the change log of datasource '{}'; a standby replica takes over", datasource);
    }
  }

  @Override
  public String toString() {
    return "LogCapture{" + datasource + ", slot " + slot + "}";
  }
}
