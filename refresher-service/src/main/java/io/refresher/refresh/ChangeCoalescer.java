package io.refresher.refresh;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns a stream of "key K changed" into few runs per key: the first change runs at once; changes
 * that arrive while that run is going on, or within the window after it started, are folded into
 * one more run at the end of the window (or at the end of the run, if it took longer). Runs of a key
 * therefore start at least a window apart, one at a time: a burst of changes to one row costs at
 * most {@code 1 s / window + 1} source runs per second, however many notifications it sends, and
 * the last change of a burst is always followed by a run that started after it.
 *
 * <p>A run that finds the key locked by another refresh ({@link Result.Busy}) does not lose the
 * change: that refresh may have read the row before the change committed. The key runs again when
 * the lock ends (the holder's lease, or earlier: the retry comes back after a short, doubling
 * delay, since a live holder releases long before its lease ends), still at least a window after
 * the previous run. A key that stays locked for longer than {@code maxBusy} is given up on (logged
 * and counted): its next scheduled refresh reads the change anyway.
 *
 * <p>Memory is bounded: at most {@code maxPendingKeys} keys have a run going on or planned; a
 * change to another key beyond that is refused ({@link #changed} answers false), and the caller
 * waits for room ({@link #awaitRoom}): the listener stops reading notifications meanwhile, which
 * wait in PostgreSQL's queue (backpressure; a dropped change of a key the service keeps would
 * wait for its TTL). A key is forgotten when a window ends with no change in it.
 *
 * <p><b>Knowing when a change is applied.</b> A caller that must not lose a change (the log feed,
 * which acknowledges a position of the write-ahead log only once every change before it is
 * applied) passes an {@link Applied} callback with it: it is called once, with true after a run
 * that started after the change ended without finding the key locked, or with false when the
 * change was not applied (the run failed, the key stayed locked past {@code maxBusy}, or the
 * coalescer closed). A callback never runs under the coalescer's lock.
 *
 * <p>Thread-safety: one lock guards the bookkeeping (constant work per call); runs start on the
 * {@link DelayedTasks}' threads, outside it, and never two at once for one key. A run may end on
 * another thread ({@link Action#start}): its window is planned when it ends.
 */
public final class ChangeCoalescer {

  private static final Logger LOG = LoggerFactory.getLogger(ChangeCoalescer.class);

  /** The first retry of a locked key comes after this (or after the window, if longer). */
  static final Duration FIRST_BUSY_RETRY = Duration.ofMillis(10);
  /** Retries of a locked key come at least this often, whatever the lock's lease says. */
  static final Duration MAX_BUSY_RETRY = Duration.ofSeconds(1);
  /** After a lock's lease ends, before the key is tried: Redis expires keys within a millisecond. */
  static final Duration LOCK_END_MARGIN = Duration.ofMillis(20);
  /** What one run for a key did. */
  public sealed interface Result {
    /** The change was applied (or there was nothing to apply). */
    Result DONE = new Done();

    /** Could not be applied (Redis or the registry unreachable): the change is lost unless retried. */
    Result FAILED = new Failed();

    /** Applied, or nothing to apply: the key needs no further run for it. */
    record Done() implements Result {}

    /** Not applied, and not to be retried here (a change of the notification feed is lost then). */
    record Failed() implements Result {}

    /**
     * Another refresh holds the key's lock: run again after it.
     *
     * @param lockedUntil when that lock's lease ends at the latest; null when unknown
     */
    record Busy(Instant lockedUntil) implements Result {}
  }

  /** What runs for a key: one refresh or eviction. May throw; the key is then done. */
  @FunctionalInterface
  public interface Action {
    Result run(String key);

    /**
     * Starts the run and answers when it ends: an action that gathers keys into one source query
     * (a batch source's changed keys) answers later, without holding the coalescer's thread while
     * the others gather. By default the run happens here.
     */
    default CompletionStage<Result> start(String key) {
      return CompletableFuture.completedFuture(run(key));
    }
  }

  /** Told once whether a change was applied; see the class comment. */
  @FunctionalInterface
  public interface Applied {
    void applied(boolean applied);

    Applied NONE = applied -> {};
  }

  /** The bookkeeping of one key with a run going on or planned. */
  private static final class Pending {
    /** Callbacks of changes the next run applies (they came after the current run started). */
    List<Applied> owed = new ArrayList<>();
    /** Callbacks of changes the current run applies. */
    List<Applied> inRun = List.of();
    /** When the current (or last) run started: the next starts a window after it at the earliest. */
    long windowStartMillis;
    /** A change came after the current run started: one more run is owed. */
    boolean dirty;
    /** Since when the key has been found locked, run after run; -1 when it was not. */
    long busySinceMillis = -1;
    int busyRuns;
  }

  private final Action action;
  private final DelayedTasks tasks;
  private final InstantSource clock;
  private final long windowMillis;
  private final int maxPendingKeys;
  private final Duration maxBusy;
  private final ChangeEvents events;

  private final Map<String, Pending> pending = new HashMap<>();
  private boolean closed;

  /**
   * @param window the shortest time between the starts of two runs of a key
   * @param maxPendingKeys how many keys may have a run going on or planned at once
   * @param maxBusy how long a key may stay locked by others before its change is given up on
   */
  public ChangeCoalescer(
      Action action,
      DelayedTasks tasks,
      InstantSource clock,
      Duration window,
      int maxPendingKeys,
      Duration maxBusy,
      ChangeEvents events) {
    if (window.isNegative() || maxPendingKeys < 1) {
      throw new IllegalArgumentException("window must be >= 0 and maxPendingKeys >= 1");
    }
    this.action = action;
    this.tasks = tasks;
    this.clock = clock;
    this.windowMillis = window.toMillis();
    this.maxPendingKeys = maxPendingKeys;
    this.maxBusy = maxBusy;
    this.events = events;
  }

  /**
   * Records that {@code key} changed: runs it now if nothing is going on for it, otherwise owes it
   * one more run. Never blocks.
   *
   * @return false when the change was not taken: the pending set is full (wait for room and offer
   *     it again), or the coalescer is closed
   */
  public boolean changed(String key) {
    return changed(key, Applied.NONE);
  }

  /**
   * As {@link #changed(String)}, and tells {@code applied} once whether the change was applied
   * (only when this answers true: a change not taken is not reported).
   */
  public boolean changed(String key, Applied applied) {
    Pending started;
    synchronized (this) {
      if (closed) {
        return false;
      }
      Pending known = pending.get(key);
      if (known != null) {
        known.dirty = true;
        known.owed.add(applied);
        events.coalesced();
        return true;
      }
      if (pending.size() >= maxPendingKeys) {
        return false;
      }
      started = new Pending();
      started.owed.add(applied);
      pending.put(key, started);
    }
    tasks.run(() -> run(key, started), Duration.ZERO);
    return true;
  }

  /** Keys with a run going on or planned. */
  public synchronized int pendingKeys() {
    return pending.size();
  }

  /** The most keys that may have a run going on or planned at once. */
  public int maxPendingKeys() {
    return maxPendingKeys;
  }

  public synchronized boolean isClosed() {
    return closed;
  }

  /**
   * Blocks until the pending set has room for one more key (a key is forgotten when its window
   * ends with no change in it) or the coalescer is closed.
   */
  public synchronized void awaitRoom() throws InterruptedException {
    while (!closed && pending.size() >= maxPendingKeys) {
      wait();
    }
  }

  /** Takes no more changes and starts no more runs; runs going on finish; callers waiting for room return. */
  public void close() {
    List<Applied> unapplied = new ArrayList<>();
    synchronized (this) {
      closed = true;
      for (Pending state : pending.values()) {
        unapplied.addAll(state.owed);
        unapplied.addAll(state.inRun);
        state.owed = new ArrayList<>();
        state.inRun = List.of();
      }
      pending.clear();
      notifyAll();
    }
    tell(unapplied, false);
  }

  private void run(String key, Pending state) {
    synchronized (this) {
      // the actual start, not when the run was asked for: a run that waited for a thread must not
      // bring the next one closer than a window
      state.windowStartMillis = clock.millis();
      state.inRun = state.owed;
      state.owed = new ArrayList<>();
    }
    CompletionStage<Result> run;
    try {
      run = action.start(key);
    } catch (RuntimeException e) {
      run = CompletableFuture.failedFuture(e);
    }
    run.whenComplete((result, error) -> {
      if (error != null) {
        LOG.error("change of key '{}' could not be applied", key, error);
        events.failed();
        ended(key, state, Result.FAILED);
      } else {
        ended(key, state, result == null ? Result.FAILED : result);
      }
    });
  }

  /** A run ended: tells its changes' callbacks, and plans the end of its window. */
  private void ended(String key, Pending state, Result result) {
    long delay;
    List<Applied> told;
    boolean applied = result instanceof Result.Done;
    synchronized (this) {
      told = state.inRun;
      state.inRun = List.of();
      if (closed) {
        applied = false;
        told = new ArrayList<>(told);
        told.addAll(state.owed);
        state.owed = new ArrayList<>();
        delay = -1;
      } else {
        long now = clock.millis();
        long nextAt = state.windowStartMillis + windowMillis;
        if (result instanceof Result.Busy busy) {
          long retryAt = busyRetryAt(key, state, busy, now);
          if (state.dirty && state.busySinceMillis >= 0) {
            // tried again: the changes of this run are owed by the next one
            state.owed.addAll(0, told);
            told = List.of();
          }
          nextAt = Math.max(nextAt, retryAt);
        } else {
          state.busySinceMillis = -1;
          state.busyRuns = 0;
        }
        delay = Math.max(0, nextAt - now);
      }
    }
    tell(told, applied);
    if (delay >= 0) {
      tasks.run(() -> windowEnded(key, state), Duration.ofMillis(delay));
    }
  }

  private static void tell(List<Applied> callbacks, boolean applied) {
    for (Applied callback : callbacks) {
      try {
        callback.applied(applied);
      } catch (RuntimeException e) {
        LOG.error("a change's callback failed", e);
      }
    }
  }

  /** When a run that found the key locked is tried again; marks the key as owing a run unless given up. */
  private long busyRetryAt(String key, Pending state, Result.Busy busy, long now) {
    if (state.busySinceMillis < 0) {
      state.busySinceMillis = now;
    }
    state.busyRuns++;
    if (now - state.busySinceMillis > maxBusy.toMillis()) {
      LOG.warn(
          "change of key '{}' not applied: the key stayed locked by other refreshes for {} ms ({} tries); its next scheduled refresh brings it",
          key,
          now - state.busySinceMillis,
          state.busyRuns);
      events.failed();
      state.busySinceMillis = -1;
      state.busyRuns = 0;
      return now;
    }
    state.dirty = true;
    events.retried();
    long backoff = Math.min(
        MAX_BUSY_RETRY.toMillis(),
        Math.max(FIRST_BUSY_RETRY.toMillis(), windowMillis) << Math.min(20, state.busyRuns - 1));
    long retryAt = now + backoff;
    if (busy.lockedUntil() != null) {
      retryAt = Math.min(retryAt, busy.lockedUntil().toEpochMilli() + LOCK_END_MARGIN.toMillis());
    }
    return Math.max(now + 1, retryAt);
  }

  /** The window of the last run ended: run again if a change came meanwhile, else forget the key. */
  private void windowEnded(String key, Pending state) {
    synchronized (this) {
      if (closed || pending.get(key) != state) {
        return;
      }
      if (!state.dirty) {
        pending.remove(key);
        notifyAll();
        return;
      }
      state.dirty = false;
    }
    run(key, state);
  }
}
