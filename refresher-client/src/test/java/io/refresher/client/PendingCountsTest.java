package io.refresher.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** The in-memory half of access counting, without Redis: exact and bounded under concurrency. */
class PendingCountsTest {

  @Test
  void drain_whileManyThreadsAdd_takesEveryReadExactlyOnce() throws Exception {
    PendingCounts pending = new PendingCounts(1_000);
    int threads = 4;
    int perThread = 200_000;
    int keys = 10;
    Map<String, Long> drained = new HashMap<>();
    AtomicBoolean adding = new AtomicBoolean(true);
    CountDownLatch start = new CountDownLatch(1);
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      Future<?>[] adders = new Future<?>[threads];
      for (int t = 0; t < threads; t++) {
        int offset = t;
        adders[t] =
            pool.submit(
                () -> {
                  start.await();
                  for (int i = 0; i < perThread; i++) {
                    assertThat(pending.add("key:" + ((i + offset) % keys), 1)).isTrue();
                  }
                  return null;
                });
      }
      // Drains run all the time the adders do: every retire/re-create race gets its chance.
      Thread drainer =
          new Thread(
              () -> {
                while (adding.get()) {
                  pending.drain().forEach((key, count) -> drained.merge(key, count, Long::sum));
                }
              });
      drainer.start();
      start.countDown();
      for (Future<?> adder : adders) {
        adder.get(60, TimeUnit.SECONDS);
      }
      adding.set(false);
      drainer.join();
    } finally {
      pool.shutdownNow();
    }
    pending.drain().forEach((key, count) -> drained.merge(key, count, Long::sum));

    assertThat(drained).hasSize(keys);
    assertThat(drained.values()).allMatch(count -> count == (long) threads * perThread / keys);
    assertThat(pending.pendingKeys()).isZero();
  }

  @Test
  void add_newKeyWhenFull_isRefusedButKnownKeysStillCount() {
    PendingCounts pending = new PendingCounts(2);

    assertThat(pending.add("a", 1)).isTrue();
    assertThat(pending.add("b", 1)).isTrue();
    assertThat(pending.add("c", 1)).isFalse();
    assertThat(pending.add("a", 5)).isTrue();

    assertThat(pending.pendingKeys()).isEqualTo(2);
    assertThat(pending.drain()).containsExactlyInAnyOrderEntriesOf(Map.of("a", 6L, "b", 1L));
    assertThat(pending.pendingKeys()).isZero();
    assertThat(pending.add("c", 1)).isTrue();
  }
}
