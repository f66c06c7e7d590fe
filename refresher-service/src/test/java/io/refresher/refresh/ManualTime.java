package io.refresher.refresh;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.PriorityQueue;

/**
 * A clock and a task runner that stand still until a test moves them: {@link #advance} runs the
 * tasks that come due on the way, in order of their times, on the test's thread. A task may move
 * the clock itself ({@link #pass}) to stand for the time its work takes.
 */
final class ManualTime implements InstantSource, DelayedTasks {

  private record Task(long atMillis, long sequence, Runnable runnable) {}

  private final PriorityQueue<Task> queue =
      new PriorityQueue<>((a, b) -> a.atMillis != b.atMillis ? Long.compare(a.atMillis, b.atMillis) : Long.compare(a.sequence, b.sequence));
  private long nowMillis;
  private long sequence;

  ManualTime(Instant start) {
    this.nowMillis = start.toEpochMilli();
  }

  @Override
  public void run(Runnable task, Duration delay) {
    queue.add(new Task(nowMillis + Math.max(0, delay.toMillis()), sequence++, task));
  }

  /** Moves the clock by {@code by}, running every task due up to then. */
  void advance(Duration by) {
    long target = nowMillis + by.toMillis();
    while (!queue.isEmpty() && queue.peek().atMillis <= target) {
      Task task = queue.poll();
      nowMillis = Math.max(nowMillis, task.atMillis);
      task.runnable.run();
    }
    nowMillis = Math.max(nowMillis, target);
  }

  /** Runs the tasks due now. */
  void runDue() {
    advance(Duration.ZERO);
  }

  /** Moves the clock without running anything: the time a task's own work takes. */
  void pass(Duration by) {
    nowMillis += by.toMillis();
  }

  int queued() {
    return queue.size();
  }

  @Override
  public long millis() {
    return nowMillis;
  }

  @Override
  public Instant instant() {
    return Instant.ofEpochMilli(nowMillis);
  }
}
