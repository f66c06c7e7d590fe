package io.refresher.changes;

import io.refresher.refresh.ChangeCoalescer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The change feeds of this replica: one {@link ChangeListener} per datasource with feeds, each on
 * a thread of its own, and the coalescer their notifications go to. Started once the whole service
 * is up (a refresh needs the Redis epoch the epoch guard reads at its start), stopped before
 * anything else stops.
 */
public final class ChangeFeeds {

  private static final Logger LOG = LoggerFactory.getLogger(ChangeFeeds.class);
  private static final Duration STOP_GRACE = Duration.ofSeconds(5);

  private final List<ChangeListener> listeners;
  private final ChangeCoalescer coalescer;
  private final ExecutorService threads;
  private final List<ChangeListener> running = new ArrayList<>();
  private boolean started;

  /** @param threads one thread per listener (their loops run for as long as the service does) */
  public ChangeFeeds(List<ChangeListener> listeners, ChangeCoalescer coalescer, ExecutorService threads) {
    this.listeners = List.copyOf(listeners);
    this.coalescer = coalescer;
    this.threads = threads;
  }

  /** On how many datasources this replica is the listener now. */
  public int listening() {
    int count = 0;
    for (ChangeListener listener : listeners) {
      if (listener.isListening()) {
        count++;
      }
    }
    return count;
  }

  public synchronized void start() {
    if (started) {
      return;
    }
    started = true;
    for (ChangeListener listener : listeners) {
      try {
        threads.execute(listener);
        running.add(listener);
      } catch (RejectedExecutionException e) {
        LOG.warn("change listener {} not started: the service is stopping", listener);
      }
    }
  }

  /**
   * Stops the coalescer, then the listeners (closing their connections); refreshes in flight
   * finish. The coalescer first: a listener waiting for room in its pending set (backpressure)
   * returns at once instead of holding the stop for its grace.
   */
  public synchronized void stop() throws InterruptedException {
    if (!started) {
      return;
    }
    started = false;
    coalescer.close();
    for (ChangeListener listener : running) {
      listener.stop(STOP_GRACE);
    }
    running.clear();
  }
}
