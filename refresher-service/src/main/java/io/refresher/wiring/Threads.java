package io.refresher.wiring;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The threads the service makes beside Dropwizard's lifecycle executors: for the parts that own
 * the pool they run on (the dispatcher gives its waiting keys back before its workers stop; the
 * query and request deadlines stop with the loader that uses them), and for a lifecycle executor
 * whose task may outlast the stop (the due index's shard move). Every thread is a daemon with a
 * name that says whose it is, so a thread dump reads and a forgotten pool never keeps the JVM up.
 */
public final class Threads {

  private Threads() {}

  /** Daemon threads named {@code prefix} followed by 1, 2, ... */
  public static ThreadFactory named(String prefix) {
    AtomicInteger sequence = new AtomicInteger();
    return runnable -> {
      Thread thread = new Thread(runnable, prefix + sequence.incrementAndGet());
      thread.setDaemon(true);
      return thread;
    };
  }

  /**
   * A scheduler of {@code threads} threads whose cancelled tasks leave its queue at once (a timer
   * that is mostly cancelled, such as a deadline, otherwise keeps every cancelled task until it was
   * due) and whose delayed tasks do not run after shutdown.
   */
  public static ScheduledThreadPoolExecutor scheduler(String prefix, int threads) {
    ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(threads, named(prefix));
    scheduler.setRemoveOnCancelPolicy(true);
    scheduler.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    return scheduler;
  }

  /**
   * Threads made as tasks come and ended after {@link #ON_DEMAND_IDLE_SECONDS} idle: for work that
   * blocks rarely, such as the cancel requests of queries past their deadline. Those come in a
   * burst when a server freezes (each one waits for the server), and a minute's keep-alive, the
   * JDK's cached pool's, would keep the burst's threads for a minute after the server is back.
   */
  public static ExecutorService onDemand(String prefix) {
    return new ThreadPoolExecutor(
        0, Integer.MAX_VALUE, ON_DEMAND_IDLE_SECONDS, TimeUnit.SECONDS, new SynchronousQueue<>(), named(prefix));
  }

  static final long ON_DEMAND_IDLE_SECONDS = 5;
}
