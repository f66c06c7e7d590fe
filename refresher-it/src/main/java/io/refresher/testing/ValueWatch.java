package io.refresher.testing;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

/**
 * Reads a fixed set of keys every few milliseconds, as an application would, and keeps what it
 * saw: each key's successive values (a value is {@code "<compute epoch millis> <replica> <run>"}, as
 * the replica tests' source returns it: the run is the source's count of its own runs for the key), every read that found a key absent, and every read that found
 * an older value where a newer one had already been seen (a late write that a fence should have
 * refused).
 */
public final class ValueWatch implements AutoCloseable {

  /**
   * One value a key had: when the source computed it, which replica's session ran it, and the
   * number of that run of the source for the key.
   */
  public record Version(long computedAtMillis, String replica, long run, long firstSeenMillis) {}

  /** A read that found a key absent. */
  public record Absence(String key, long atMillis) {}

  /** A read that found a value computed before the one already seen. */
  public record Regression(String key, Version seen, Version newer) {}

  private final RedissonClient client;
  private final String[] keys;
  private final Map<String, List<Version>> versions = new ConcurrentHashMap<>();
  private final List<Absence> absences = new CopyOnWriteArrayList<>();
  private final List<Regression> regressions = new CopyOnWriteArrayList<>();
  private final AtomicLong polls = new AtomicLong();
  private final ScheduledExecutorService thread =
      Executors.newSingleThreadScheduledExecutor(runnable -> new Thread(runnable, "value-watch"));

  public ValueWatch(TestRedis redis, List<String> keys, long pollMillis) {
    this.client = redis.connect();
    this.keys = keys.toArray(String[]::new);
    for (String key : keys) {
      versions.put(key, new CopyOnWriteArrayList<>());
    }
    thread.scheduleWithFixedDelay(this::poll, 0, pollMillis, TimeUnit.MILLISECONDS);
  }

  private void poll() {
    try {
      Map<String, String> found = client.getBuckets(StringCodec.INSTANCE).get(keys);
      long now = System.currentTimeMillis();
      for (String key : keys) {
        String value = found.get(key);
        if (value == null) {
          absences.add(new Absence(key, now));
          continue;
        }
        String[] parts = value.split(" ");
        Version version = new Version(Long.parseLong(parts[0]), parts[1], Long.parseLong(parts[2]), now);
        List<Version> history = versions.get(key);
        Version last = history.isEmpty() ? null : history.get(history.size() - 1);
        if (last == null || version.computedAtMillis() > last.computedAtMillis()) {
          history.add(version);
        } else if (version.computedAtMillis() < last.computedAtMillis()) {
          regressions.add(new Regression(key, last, version));
        }
      }
      polls.incrementAndGet();
    } catch (RuntimeException e) {
      // A failed read is the reader's problem, not an absence; the next poll tries again.
    }
  }

  /** Polls completed so far (to wait for one that started after some moment). */
  public long polls() {
    return polls.get();
  }

  public List<Absence> absences() {
    return List.copyOf(absences);
  }

  public List<Regression> regressions() {
    return List.copyOf(regressions);
  }

  /** The versions of a key computed in {@code [fromMillis, toMillis)}, oldest first. */
  public List<Version> versions(String key, long fromMillis, long toMillis) {
    List<Version> inWindow = new ArrayList<>();
    for (Version version : versions.get(key)) {
      if (version.computedAtMillis() >= fromMillis && version.computedAtMillis() < toMillis) {
        inWindow.add(version);
      }
    }
    return Collections.unmodifiableList(inWindow);
  }

  /** The latest version seen of a key, or null. */
  public Version latest(String key) {
    List<Version> history = versions.get(key);
    return history.isEmpty() ? null : history.get(history.size() - 1);
  }

  @Override
  public void close() {
    thread.shutdownNow();
    client.shutdown();
  }
}
