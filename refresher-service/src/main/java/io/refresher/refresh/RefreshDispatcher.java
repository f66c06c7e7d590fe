package io.refresher.refresh;

import io.refresher.registry.Registration;
import io.refresher.registry.RegistrationLookup;
import io.refresher.registry.RegistryUnavailableException;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Moves due keys from the shared due index to this replica's workers.
 *
 * <p>One dispatcher thread claims, in batches, the keys due within the lookahead, loads their
 * registrations with one query per batch, and schedules each on a bounded pool of worker threads
 * for its exact due time. Claimed-but-unfinished keys are capped at {@code maxInFlight}, so a
 * backlog (after an outage, or a mass expiry) drains at the pool's pace instead of piling up in
 * memory; keys this replica cannot take stay in the index for the other replicas.
 *
 * <p>Memory does not grow with the number of registered keys: only in-flight keys are held.
 *
 * <p>Failure semantics: a Redis or PostgreSQL error in a tick is logged (once per streak), counted
 * in {@link #consecutiveTickFailures()}, and the next tick tries again; claimed keys that could not
 * be started come back after their claim lease. On stop, keys still waiting for their time are
 * given back to the index for other replicas.
 */
public final class RefreshDispatcher {

  private static final Logger LOG = LoggerFactory.getLogger(RefreshDispatcher.class);

  private final DueIndex index;
  private final RegistrationLookup registrations;
  private final Refresher refresher;
  private final RescheduleBuffer reschedules;
  private final DispatchSettings settings;
  private final RefreshListener listener;
  private final LagTracker lag;
  private final InstantSource clock;

  private final AtomicInteger inFlight = new AtomicInteger();
  private final AtomicInteger tickFailures = new AtomicInteger();
  private final AtomicLong lastTickMillis = new AtomicLong();
  private final AtomicLong claimedTotal = new AtomicLong();

  /** Claimed keys whose time has not come yet; given back to the index on stop. */
  private final Set<DueRefresh> waiting = ConcurrentHashMap.newKeySet();

  private ScheduledExecutorService dispatcherThread;
  private ScheduledThreadPoolExecutor workers;

  public RefreshDispatcher(
      DueIndex index,
      RegistrationLookup registrations,
      Refresher refresher,
      RescheduleBuffer reschedules,
      DispatchSettings settings,
      RefreshListener listener,
      LagTracker lag,
      InstantSource clock) {
    this.index = index;
    this.registrations = registrations;
    this.refresher = refresher;
    this.reschedules = reschedules;
    this.settings = settings;
    this.listener = listener;
    this.lag = lag;
    this.clock = clock;
  }

  public synchronized void start() {
    if (dispatcherThread != null) {
      return;
    }
    workers = new ScheduledThreadPoolExecutor(settings.workers(), named("refresh-worker-"));
    workers.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    workers.setRemoveOnCancelPolicy(true);
    dispatcherThread = Executors.newSingleThreadScheduledExecutor(named("refresh-dispatcher-"));
    dispatcherThread.scheduleWithFixedDelay(
        this::tick, 0, settings.pollInterval().toMillis(), TimeUnit.MILLISECONDS);
    LOG.info(
        "refresh dispatcher started: {} workers, up to {} keys in flight, lookahead {} ms",
        settings.workers(),
        settings.maxInFlight(),
        settings.lookahead().toMillis());
  }

  /** Stops claiming, gives waiting keys back, and waits up to {@code grace} for running refreshes. */
  public synchronized void stop(Duration grace) throws InterruptedException {
    if (dispatcherThread == null) {
      return;
    }
    dispatcherThread.shutdown();
    dispatcherThread.awaitTermination(grace.toMillis(), TimeUnit.MILLISECONDS);
    // Delayed (not yet started) refreshes are dropped by shutdown() and given back to the index;
    // running ones finish within the grace, so no value write is cut off half-way.
    workers.shutdown();
    int givenBack = giveBack();
    if (!workers.awaitTermination(grace.toMillis(), TimeUnit.MILLISECONDS)) {
      workers.shutdownNow();
    }
    try {
      reschedules.flush();
    } catch (CacheUnavailableException e) {
      LOG.warn("could not write {} due times on stop: {}", reschedules.pendingCount(), e.getMessage());
    }
    dispatcherThread = null;
    workers = null;
    LOG.info("refresh dispatcher stopped; gave {} waiting keys back to the due index", givenBack);
  }

  public int inFlight() {
    return inFlight.get();
  }

  public int consecutiveTickFailures() {
    return tickFailures.get();
  }

  /** When the last tick completed without error (epoch ms; 0 before the first). */
  public long lastHealthyTickMillis() {
    return lastTickMillis.get();
  }

  public long claimedTotal() {
    return claimedTotal.get();
  }

  public boolean isRunning() {
    ScheduledExecutorService thread = dispatcherThread;
    return thread != null && !thread.isShutdown();
  }

  void tick() {
    try {
      reschedules.flush();
      while (claimOnce()) {
        // A full batch means more may be due: claim again without waiting for the next poll.
      }
      lastTickMillis.set(clock.millis());
      int previous = tickFailures.getAndSet(0);
      if (previous > 0) {
        LOG.info("refresh dispatcher recovered after {} failed ticks", previous);
      }
    } catch (CacheUnavailableException | RegistryUnavailableException e) {
      if (tickFailures.incrementAndGet() == 1) {
        LOG.warn("refresh dispatcher cannot claim due keys: {}; retrying every poll", e.getMessage());
      }
    } catch (RuntimeException e) {
      tickFailures.incrementAndGet();
      LOG.error("refresh dispatcher tick failed unexpectedly", e);
    }
  }

  /** Claims and schedules one batch; returns true when the batch was full. */
  private boolean claimOnce() {
    int capacity = settings.maxInFlight() - inFlight.get();
    if (capacity <= 0) {
      return false;
    }
    int limit = Math.min(capacity, settings.claimBatch());
    long now = clock.millis();
    List<DueIndex.DueKey> claimed =
        index.claim(
            now + settings.lookahead().toMillis(), limit, now + settings.claimLease().toMillis());
    if (claimed.isEmpty()) {
      return false;
    }
    claimedTotal.addAndGet(claimed.size());
    List<String> keys = new ArrayList<>(claimed.size());
    claimed.forEach(due -> keys.add(due.key()));
    Map<String, Registration> found;
    try {
      found = registrations.findAll(keys);
    } catch (RegistryUnavailableException e) {
      // Put them back a little later rather than waiting out the whole claim lease.
      Map<String, Long> retry = new HashMap<>();
      long retryAt = now + settings.pollInterval().toMillis() * 20;
      claimed.forEach(due -> retry.put(due.key(), Math.max(due.plannedAtMillis(), retryAt)));
      index.reschedule(retry);
      throw e;
    }
    Map<String, Long> orphans = new HashMap<>();
    for (DueIndex.DueKey due : claimed) {
      Registration registration = found.get(due.key());
      if (registration == null) {
        orphans.put(due.key(), due.plannedAtMillis());
        continue;
      }
      startAt(registration, due.plannedAtMillis(), now);
    }
    if (!orphans.isEmpty()) {
      // Deleted (or their template was) while due: drop from the index so they are not handed out
      // again. Rechecked first: a template created a moment ago elsewhere may not be known here yet.
      Map<String, Registration> late = registrations.recheck(orphans.keySet());
      List<String> gone = new ArrayList<>();
      for (Map.Entry<String, Long> orphan : orphans.entrySet()) {
        Registration registration = late.get(orphan.getKey());
        if (registration == null) {
          gone.add(orphan.getKey());
          continue;
        }
        startAt(registration, orphan.getValue(), now);
      }
      if (!gone.isEmpty()) {
        index.remove(gone);
      }
    }
    return claimed.size() >= limit;
  }

  /** Holds a claimed key in memory until its due time, then refreshes it on a worker. */
  private void startAt(Registration registration, long plannedAtMillis, long now) {
    inFlight.incrementAndGet();
    DueRefresh task = new DueRefresh(registration, plannedAtMillis);
    waiting.add(task);
    workers.schedule(task, Math.max(0, plannedAtMillis - now), TimeUnit.MILLISECONDS);
  }

  private int giveBack() {
    Map<String, Long> back = new HashMap<>();
    for (DueRefresh task : waiting) {
      if (waiting.remove(task)) {
        back.put(task.registration.key(), task.plannedAtMillis);
        inFlight.decrementAndGet();
      }
    }
    if (!back.isEmpty()) {
      try {
        index.reschedule(back);
      } catch (CacheUnavailableException e) {
        LOG.warn("could not give {} waiting keys back ({}); their claim lease returns them", back.size(), e.getMessage());
      }
    }
    return back.size();
  }

  private static ThreadFactory named(String prefix) {
    AtomicInteger sequence = new AtomicInteger();
    return runnable -> {
      Thread thread = new Thread(runnable, prefix + sequence.incrementAndGet());
      thread.setDaemon(true);
      return thread;
    };
  }

  /** One claimed key waiting for, then running, its refresh. */
  private final class DueRefresh implements Runnable {
    private final Registration registration;
    private final long plannedAtMillis;

    DueRefresh(Registration registration, long plannedAtMillis) {
      this.registration = registration;
      this.plannedAtMillis = plannedAtMillis;
    }

    @Override
    public void run() {
      if (!waiting.remove(this)) {
        return; // given back on stop
      }
      try {
        Duration late = Duration.ofMillis(Math.max(0, clock.millis() - plannedAtMillis));
        listener.onLag(late);
        lag.record(late);
        refresher.refresh(registration, Trigger.SCHEDULED);
      } catch (RuntimeException e) {
        // The executor would swallow it silently; the key's claim lease brings it back.
        LOG.error("scheduled refresh of key '{}' failed unexpectedly", registration.key(), e);
      } finally {
        inFlight.decrementAndGet();
      }
    }
  }

}
