package io.refresher.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.postgresql.core.BaseConnection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Ends source queries at their source's timeout, whatever part of the read they are in. A
 * statement timeout covers only the execution and the first fetch of a streamed result: pgjdbc
 * starts its timer in {@code execute} and stops it when {@code execute} returns, and {@link
 * Statement#cancel()} does nothing once it has. Later fetches were bounded only by the socket
 * timeout: a result whose later rows trickled read on for 20.25 s against a 2 s timeout, long past
 * the 5 s lease of the concurrency slot it ran under.
 *
 * <p>So each query also gets a timer: at its deadline the connection's current query is cancelled
 * (pgjdbc's {@code cancelQuery}, a cancel request to the server for that backend; for other drivers
 * {@link Statement#cancel()}, which may only reach the execution), and again every {@link
 * #REPEAT} until the read ends: a cancel that arrives while the backend waits for the next fetch
 * (the client is writing rows) is ignored by the server, and the next fetch must still be ended.
 * The server answers the fetch with {@code 57014}, which the loader reports as a timeout.
 *
 * <p>A cancel names a backend, not a query: one sent after the read ended could end the next
 * query on the same pooled connection. {@link Deadline#close()} therefore waits for a cancel being
 * sent, and no cancel starts after it; it must be closed before the connection goes back to the
 * pool. One timer thread serves every datasource; a closed deadline takes its timer off the queue.
 * The cancels are sent from threads of their own: sending one opens a connection to the server,
 * which a frozen database holds for pgjdbc's {@code cancelSignalTimeout} (10 s), and the deadlines
 * of other datasources must not wait behind it. Each read has at most one cancel on the way, so
 * there are never more sending threads than open reads.
 */
final class QueryDeadlines implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(QueryDeadlines.class);

  /** How often a cancel is sent again while a timed-out read goes on. */
  static final Duration REPEAT = Duration.ofMillis(200);

  private final ScheduledThreadPoolExecutor timer;
  private final ExecutorService senders;

  /**
   * @param timer a scheduler whose cancelled tasks leave its queue (the wiring's {@code
   *     Threads.scheduler}); shut down with these deadlines
   * @param senders threads made as cancels need them; shut down with these deadlines
   */
  QueryDeadlines(ScheduledThreadPoolExecutor timer, ExecutorService senders) {
    this.timer = timer;
    this.senders = senders;
  }

  /**
   * Starts the clock of one read on {@code connection}: at {@code deadlineNanos} ({@link
   * System#nanoTime()}) its query is cancelled, unless closed first.
   */
  Deadline start(Connection connection, Statement statement, long deadlineNanos) {
    return new Deadline(connection, statement, deadlineNanos);
  }

  @Override
  public void close() {
    timer.shutdownNow();
    senders.shutdownNow();
  }

  /** One read's deadline. */
  final class Deadline implements AutoCloseable {

    private final Connection connection;
    private final Statement statement;
    private final long deadlineNanos;
    private final ScheduledFuture<?> task;
    private final AtomicBoolean sending = new AtomicBoolean();
    private boolean closed;

    private Deadline(Connection connection, Statement statement, long deadlineNanos) {
      this.connection = connection;
      this.statement = statement;
      this.deadlineNanos = deadlineNanos;
      long delay = Math.max(0, deadlineNanos - System.nanoTime());
      this.task = timer.scheduleWithFixedDelay(this::send, delay, REPEAT.toNanos(), TimeUnit.NANOSECONDS);
    }

    /** Whether the deadline has passed. */
    boolean passed() {
      return System.nanoTime() - deadlineNanos >= 0;
    }

    /** On the timer: hands a cancel to a sender, unless one is still on its way. */
    private void send() {
      if (!sending.compareAndSet(false, true)) {
        return;
      }
      try {
        senders.execute(
            () -> {
              try {
                cancel();
              } finally {
                sending.set(false);
              }
            });
      } catch (RejectedExecutionException e) {
        sending.set(false); // stopping
      }
    }

    private synchronized void cancel() {
      if (closed) {
        return;
      }
      try {
        if (connection.isWrapperFor(BaseConnection.class)) {
          connection.unwrap(BaseConnection.class).cancelQuery();
        } else {
          statement.cancel();
        }
      } catch (SQLException | RuntimeException e) {
        // The read ends at the socket timeout then; the next repeat tries again.
        LOG.debug("cancel of a timed-out source query failed: {}", e.toString());
      }
    }

    /** Stops the clock; returns only once no cancel is being sent, and none will be. */
    @Override
    public synchronized void close() {
      closed = true;
      task.cancel(false);
    }
  }
}
