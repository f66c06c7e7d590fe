package io.refresher.client;

import io.refresher.client.driver.RedisDriver;
import io.refresher.client.protocol.AccessProtocol;
import java.time.Duration;
import java.time.InstantSource;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Counts reads of keys in-process and reports them to Redis in batches, so that the Refresher
 * service can tell hot keys from cold ones ({@link AccessProtocol}).
 *
 * <ul>
 *   <li>{@link #record} never blocks and does no I/O: it bumps an in-memory counter.
 *   <li>Memory is bounded: at most {@code maxPendingKeys} distinct keys wait for the next flush. A
 *       read of a new key while all are taken is dropped (counted in {@link Stats#dropped()}) and
 *       an early flush is requested.
 *   <li>Counts are never doubled: after {@link #flush()} or {@link #close()} every recorded read
 *       has been added to Redis exactly once, except the dropped ones and the {@link
 *       Stats#unconfirmed() unconfirmed} ones (sent, but the answer was lost: Redis may or may
 *       not have added them, and they are not sent again, so a timeout never counts a read twice).
 *   <li>One daemon thread flushes every {@code flushInterval}, all shards in one round trip. A
 *       flush that Redis surely did not run (no connection, an error reply) keeps its counts for
 *       the next one (as far as there is room).
 * </ul>
 */
public final class AccessCounter implements AutoCloseable {

  public static final Duration DEFAULT_FLUSH_INTERVAL = Duration.ofSeconds(1);
  public static final Duration MIN_FLUSH_INTERVAL = Duration.ofMillis(10);
  public static final Duration MAX_FLUSH_INTERVAL = Duration.ofSeconds(60);
  public static final int DEFAULT_MAX_PENDING_KEYS = 100_000;

  private static final Logger LOG = LoggerFactory.getLogger(AccessCounter.class);
  private static final Duration SHUTDOWN_WAIT = Duration.ofSeconds(10);

  /**
   * Counts since the counter was built; {@code recorded = flushed + dropped + unconfirmed + still
   * pending}. {@code unconfirmed}: reads whose write was sent but not answered (a timeout, a closed
   * connection), which Redis may or may not have added; they are not sent again. {@code
   * failing}: whether the latest flush that had something to write failed (a health check's
   * signal: reads are not reaching the service).
   */
  public record Stats(
      long recorded,
      long flushed,
      long dropped,
      long unconfirmed,
      long flushFailures,
      int pendingKeys,
      boolean failing) {}

  private final PendingCounts pending;
  private final AccessBucketWriter writer;
  private final InstantSource clock;
  private final ScheduledExecutorService flusher;

  private final LongAdder recorded = new LongAdder();
  private final LongAdder flushed = new LongAdder();
  private final LongAdder dropped = new LongAdder();
  private final LongAdder unconfirmed = new LongAdder();
  private final LongAdder flushFailures = new LongAdder();

  /** Drains must not overlap (see {@link PendingCounts}); also orders the failure-streak logging. */
  private final ReentrantLock flushLock = new ReentrantLock();
  /** Written under flushLock; read without it by requestEarlyFlush. */
  private volatile boolean failing;

  private final AtomicBoolean earlyFlushQueued = new AtomicBoolean();
  private final AtomicBoolean closed = new AtomicBoolean();

  private AccessCounter(Builder builder) {
    this.pending = new PendingCounts(builder.maxPendingKeys);
    this.writer = new AccessBucketWriter(builder.driver);
    this.clock = builder.clock;
    this.flusher =
        Executors.newSingleThreadScheduledExecutor(
            runnable -> {
              Thread thread = new Thread(runnable, "refresher-access-flusher");
              thread.setDaemon(true);
              return thread;
            });
    long intervalNanos = builder.flushInterval.toNanos();
    flusher.scheduleWithFixedDelay(this::flush, intervalNanos, intervalNanos, TimeUnit.NANOSECONDS);
  }

  /** A counter that flushes through {@code driver}, which {@link #close()} leaves open. */
  public static Builder builder(RedisDriver driver) {
    return new Builder(driver);
  }

  /** Counts one read of {@code key}. Never blocks, never throws for want of room or of Redis. */
  public void record(String key) {
    Objects.requireNonNull(key, "key");
    recorded.increment();
    if (closed.get() || !pending.add(key, 1)) {
      dropped.increment();
      requestEarlyFlush();
    }
  }

  /**
   * Writes the pending counts now, on the calling thread. Returns whether everything pending
   * reached Redis; on failure the counts Redis surely did not get are kept for the next flush,
   * and those whose answer was lost are counted as {@link Stats#unconfirmed()}. Never throws.
   */
  public boolean flush() {
    flushLock.lock();
    Map<String, Long> counts = Map.of();
    AccessBucketWriter.Result result = null;
    try {
      counts = pending.drain();
      if (counts.isEmpty()) {
        return true;
      }
      result = writer.write(counts, clock.millis());
      flushed.add(result.written());
      unconfirmed.add(result.unconfirmed());
      if (result.complete()) {
        noteSuccess(result.written());
        return true;
      }
      flushFailures.increment();
      result.unwritten().forEach(this::putBack);
      noteFailure(result);
      return false;
    } catch (RuntimeException unexpected) {
      // Keeps the scheduled task alive: an exception would cancel all its future runs.
      flushFailures.increment();
      if (result == null) {
        // The driver broke its promise not to throw, maybe after sending: not sent again, and
        // kept in the books as unconfirmed rather than lost from them.
        unconfirmed.add(counts.values().stream().mapToLong(Long::longValue).sum());
      }
      LOG.error("access-count flush failed unexpectedly", unexpected);
      return false;
    } finally {
      flushLock.unlock();
    }
  }

  /** Stops the flusher thread and writes what is pending; reads recorded afterwards are dropped. */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    flusher.shutdown();
    try {
      if (!flusher.awaitTermination(SHUTDOWN_WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
        flusher.shutdownNow();
      }
    } catch (InterruptedException e) {
      flusher.shutdownNow();
      Thread.currentThread().interrupt();
    }
    if (!flush()) {
      long lost = dropPending();
      LOG.warn("access counter closed with Redis unreachable: {} reads were not reported", lost);
    }
  }

  public Stats stats() {
    return new Stats(
        recorded.sum(),
        flushed.sum(),
        dropped.sum(),
        unconfirmed.sum(),
        flushFailures.sum(),
        pending.pendingKeys(),
        failing);
  }

  static Duration checkedFlushInterval(Duration flushInterval) {
    Objects.requireNonNull(flushInterval, "flushInterval");
    if (flushInterval.compareTo(MIN_FLUSH_INTERVAL) < 0 || flushInterval.compareTo(MAX_FLUSH_INTERVAL) > 0) {
      throw new IllegalArgumentException(
          "flushInterval must be between " + MIN_FLUSH_INTERVAL + " and " + MAX_FLUSH_INTERVAL + ", was " + flushInterval);
    }
    return flushInterval;
  }

  static int checkedMaxPendingKeys(int maxPendingKeys) {
    if (maxPendingKeys < 1) {
      throw new IllegalArgumentException("maxPendingKeys must be at least 1, was " + maxPendingKeys);
    }
    return maxPendingKeys;
  }

  private void putBack(String key, long count) {
    if (!pending.add(key, count)) {
      dropped.add(count);
    }
  }

  private long dropPending() {
    flushLock.lock();
    try {
      long lost = pending.drain().values().stream().mapToLong(Long::longValue).sum();
      dropped.add(lost);
      return lost;
    } finally {
      flushLock.unlock();
    }
  }

  /**
   * Asks the flusher thread for a flush now, without waiting for it. At most one such request is
   * queued, and none while Redis is failing: the scheduled flushes retry at their own pace.
   */
  private void requestEarlyFlush() {
    if (closed.get() || failing || !earlyFlushQueued.compareAndSet(false, true)) {
      return;
    }
    try {
      flusher.execute(
          () -> {
            earlyFlushQueued.set(false);
            flush();
          });
    } catch (RejectedExecutionException shutDown) {
      earlyFlushQueued.set(false);
    }
  }

  private void noteSuccess(long written) {
    if (failing) {
      failing = false;
      LOG.info("access-count flushes work again; {} reads reported", written);
    }
  }

  private void noteFailure(AccessBucketWriter.Result result) {
    if (!failing) {
      failing = true;
      LOG.warn(
          "access-count flush failed, {} keys' reads kept for the next flush, {} reads unconfirmed"
              + " (sent, answer lost; not sent again) (logged once until it works again): {}",
          result.unwritten().size(),
          result.unconfirmed(),
          String.valueOf(result.error()));
    }
  }

  /** Options of an {@link AccessCounter}; only the Redis driver is required. */
  public static final class Builder {
    private final RedisDriver driver;
    private Duration flushInterval = DEFAULT_FLUSH_INTERVAL;
    private int maxPendingKeys = DEFAULT_MAX_PENDING_KEYS;
    private InstantSource clock = InstantSource.system();

    private Builder(RedisDriver driver) {
      this.driver = Objects.requireNonNull(driver, "driver");
    }

    /** How often pending counts are written; 10 ms to 60 s, default 1 s. */
    public Builder flushInterval(Duration flushInterval) {
      this.flushInterval = checkedFlushInterval(flushInterval);
      return this;
    }

    /** How many distinct keys may wait for a flush; default 100,000. */
    public Builder maxPendingKeys(int maxPendingKeys) {
      this.maxPendingKeys = checkedMaxPendingKeys(maxPendingKeys);
      return this;
    }

    /** The clock that names the bucket (unix second) of each flush; default the system clock. */
    public Builder clock(InstantSource clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /** Starts the flusher thread. */
    public AccessCounter build() {
      return new AccessCounter(this);
    }
  }
}
