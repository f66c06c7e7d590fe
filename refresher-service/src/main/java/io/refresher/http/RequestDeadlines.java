package io.refresher.http;

import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.hc.core5.concurrent.Cancellable;

/**
 * Ends requests at their source's timeout. The client's own timeouts bound each step (a connect, a
 * wait for the next bytes) but not their sum: a server that trickles a byte a second never trips a
 * read timeout. So each request is also cancelled at its deadline, which closes its connection and
 * ends whatever read or connect is blocked on it; the body reader checks the same deadline between
 * reads. One timer thread serves every endpoint; a finished request takes its timer off the queue.
 */
final class RequestDeadlines implements AutoCloseable {

  private final ScheduledThreadPoolExecutor timer;

  /** @param timer a scheduler whose cancelled tasks leave its queue; shut down with these deadlines */
  RequestDeadlines(ScheduledThreadPoolExecutor timer) {
    this.timer = timer;
  }

  /** Starts the clock of one request: at {@code timeout} from now it is cancelled, unless closed first. */
  Deadline start(Cancellable request, Duration timeout) {
    return new Deadline(request, timeout);
  }

  @Override
  public void close() {
    timer.shutdownNow();
  }

  /** One request's deadline. */
  final class Deadline implements AutoCloseable {

    private final long deadlineNanos;
    private final AtomicBoolean fired = new AtomicBoolean();
    private final ScheduledFuture<?> task;

    private Deadline(Cancellable request, Duration timeout) {
      this.deadlineNanos = System.nanoTime() + timeout.toNanos();
      this.task =
          timer.schedule(
              () -> {
                fired.set(true);
                request.cancel();
              },
              timeout.toNanos(),
              TimeUnit.NANOSECONDS);
    }

    /** Whether the deadline has passed (and the request was, or is about to be, cancelled). */
    boolean passed() {
      return fired.get() || System.nanoTime() - deadlineNanos >= 0;
    }

    @Override
    public void close() {
      task.cancel(false);
    }
  }
}
