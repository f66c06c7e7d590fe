package io.refresher.embedded;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Servers started while other threads of the JVM start processes. A clean clone's CI run failed
 * with {@code error=26, Text file busy} starting a server for {@code LargeInputsIT}: Linux refuses to
 * execute a file that some process still holds open for writing, and a child forked by another
 * thread at the moment the binary was being written holds that descriptor until it execs. Every
 * start wrote a new copy of the binary, so every start had that window.
 */
class EmbeddedRedisConcurrentStartIT {

  private static final int SERVERS = 40;

  @Test
  void serversStartedWhileOtherThreadsForkProcesses_allStart() throws Exception {
    AtomicBoolean forking = new AtomicBoolean(true);
    AtomicInteger forks = new AtomicInteger();
    ExecutorService threads = Executors.newFixedThreadPool(4);
    try {
      List<Future<?>> forkers = new ArrayList<>();
      for (int i = 0; i < 2; i++) {
        forkers.add(
            threads.submit(
                () -> {
                  while (forking.get()) {
                    new ProcessBuilder("true").start().waitFor();
                    forks.incrementAndGet();
                  }
                  return null;
                }));
      }
      List<Future<Long>> starts = new ArrayList<>();
      for (int i = 0; i < SERVERS; i++) {
        starts.add(
            threads.submit(
                () -> {
                  try (EmbeddedRedis redis = EmbeddedRedis.start()) {
                    return redis.pid();
                  }
                }));
      }
      for (Future<Long> start : starts) {
        assertThat(start.get(60, TimeUnit.SECONDS)).isPositive();
      }
      forking.set(false);
      for (Future<?> forker : forkers) {
        forker.get(10, TimeUnit.SECONDS);
      }
      assertThat(forks.get()).as("processes forked beside the starts").isGreaterThan(SERVERS);
    } finally {
      forking.set(false);
      threads.shutdownNow();
      threads.awaitTermination(30, TimeUnit.SECONDS);
    }
  }
}
