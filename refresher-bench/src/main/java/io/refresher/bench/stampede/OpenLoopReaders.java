package io.refresher.bench.stampede;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * The open-loop load generator of one strategy: a pool of reader threads (an application's
 * request threads) takes the arrivals in order, each at its intended time, and measures its
 * latency from that intended time. A reader that is busy does not hold the schedule back: the
 * next free thread takes the next arrival, and one that is already due starts at once, its wait
 * counted in its latency (no coordinated omission).
 */
final class OpenLoopReaders {

  /** One read, as the strategy does it: the source value it returns. */
  @FunctionalInterface
  interface Read {
    String read(int rank, int instance) throws Exception;
  }

  private final String name;
  private final Arrivals arrivals;
  private final Read read;
  private final int threads;
  private final RunClock clock;
  private final ReadLog log;
  private final AtomicInteger next = new AtomicInteger();
  private final AtomicLong failures = new AtomicLong();
  private final List<Thread> workers = new ArrayList<>();
  private volatile long startNanos;
  private volatile Throwable firstFailure;

  OpenLoopReaders(String name, Arrivals arrivals, Read read, int threads, RunClock clock) {
    this.name = name;
    this.arrivals = arrivals;
    this.read = read;
    this.threads = threads;
    this.clock = clock;
    this.log = new ReadLog(arrivals.size());
  }

  /** Starts the schedule: arrival i is due at {@code startNanos + offset(i)}. */
  void start(long startNanos) {
    this.startNanos = startNanos;
    for (int t = 0; t < threads; t++) {
      Thread worker = new Thread(this::work, "stampede-" + name + "-reader-" + t);
      worker.setDaemon(true);
      workers.add(worker);
      worker.start();
    }
  }

  private void work() {
    while (true) {
      int i = next.getAndIncrement();
      if (i >= arrivals.size()) {
        return;
      }
      long intended = startNanos + arrivals.offsetNanos(i);
      long now;
      while ((now = System.nanoTime()) < intended) {
        LockSupport.parkNanos(intended - now);
      }
      int rank = arrivals.rank(i);
      long started = System.nanoTime();
      String value = null;
      try {
        value = read.read(rank, arrivals.instance(i));
      } catch (Throwable e) {
        failures.incrementAndGet();
        if (firstFailure == null) {
          firstFailure = e;
        }
      }
      long ended = System.nanoTime();
      log.intendedWallMicros[i] = clock.wallMicros(intended);
      log.startWallMicros[i] = clock.wallMicros(started);
      log.latencyNanos[i] = ended - intended;
      log.ranks[i] = rank;
      long computedAt = value == null ? Long.MIN_VALUE : SourceValues.computedAtMicros(value);
      log.failed[i] = value == null || computedAt == Long.MIN_VALUE;
      log.computedAtMicros[i] = computedAt;
      log.done[i] = true;
    }
  }

  /** Waits for the readers to finish the schedule and the reads in flight. */
  void awaitDone(long timeout, TimeUnit unit) throws InterruptedException {
    long deadline = System.nanoTime() + unit.toNanos(timeout);
    for (Thread worker : workers) {
      long left = deadline - System.nanoTime();
      if (left > 0) {
        worker.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
      }
    }
  }

  /** Reads still running (stuck) after {@link #awaitDone}. */
  long stillRunning() {
    return workers.stream().filter(Thread::isAlive).count();
  }

  ReadLog log() {
    return log;
  }

  long failures() {
    return failures.get();
  }

  Throwable firstFailure() {
    return firstFailure;
  }
}
