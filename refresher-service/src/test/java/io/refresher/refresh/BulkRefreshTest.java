package io.refresher.refresh;

import static org.assertj.core.api.Assertions.assertThat;

import io.refresher.registry.RefreshPolicy;
import io.refresher.registry.Registration;
import io.refresher.registry.RegistrationLookup;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class BulkRefreshTest {

  private static final RefreshSettings SETTINGS =
      new RefreshSettings(
          TtrSettings.fixed(Duration.ofSeconds(1)),
          0.5,
          Duration.ofSeconds(30),
          Duration.ofMinutes(5),
          0.0,
          Duration.ofMillis(100),
          Duration.ofSeconds(1),
          16);

  private final ExecutorService threads = Executors.newFixedThreadPool(8);
  private final Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
  private final AtomicInteger running = new AtomicInteger();
  private final AtomicInteger mostAtOnce = new AtomicInteger();
  private final List<String> written = java.util.Collections.synchronizedList(new ArrayList<>());

  /**
   * The first runs hold their slots until {@code openAt} of them run at once, or for 300 ms: all
   * the refreshes the bound lets start are then running together, so the most seen at once is the
   * bound (with {@code openAt} one above the bound, a bound that let one more through opens the
   * gate and shows it). After that the gate stays open and runs pass straight through.
   */
  private final CountDownLatch gate = new CountDownLatch(1);

  private int openAt = 1;

  private final ValueLoader gatedLoader =
      registration -> {
        int now = running.incrementAndGet();
        mostAtOnce.accumulateAndGet(now, Math::max);
        if (now >= openAt) {
          gate.countDown();
        }
        try {
          if (!gate.await(300, TimeUnit.MILLISECONDS)) {
            gate.countDown(); // no more could start: the bound held them back
          }
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        } finally {
          running.decrementAndGet();
        }
        runs.computeIfAbsent(registration.key(), key -> new AtomicInteger()).incrementAndGet();
        return "v";
      };

  @AfterEach
  void stop() {
    threads.shutdownNow();
  }

  @Test
  void refresh_eachKeyOnce_inRequestOrder_unregisteredAnswered() {
    BulkRefresh bulk = new BulkRefresh(lookup("a", "b", "c"), TestRefreshers.inMemory(SETTINGS, gatedLoader, written::add), threads, 2);

    List<BulkRefresh.Result> results = bulk.refresh(List.of("c", "a", "nope", "c", "b"));

    assertThat(results).extracting(BulkRefresh.Result::key).containsExactly("c", "a", "nope", "b");
    assertThat(results).extracting(BulkRefresh.Result::registered).containsExactly(true, true, false, true);
    assertThat(results.get(0).outcome()).isInstanceOf(RefreshOutcome.Refreshed.class);
    assertThat(runs).containsOnlyKeys("a", "b", "c");
    runs.values().forEach(count -> assertThat(count.get()).as("runs per key").isEqualTo(1));
    assertThat(written).containsExactlyInAnyOrder("a", "b", "c");
  }

  @Test
  void refresh_runsAtMostTheParallelismAtOnce() {
    String[] keys = new String[24];
    for (int i = 0; i < keys.length; i++) {
      keys[i] = "k" + i;
    }
    openAt = 4; // one more than the bound
    BulkRefresh bulk = new BulkRefresh(lookup(keys), TestRefreshers.inMemory(SETTINGS, gatedLoader, written::add), threads, 3);

    bulk.refresh(List.of(keys));

    assertThat(mostAtOnce.get()).as("refreshes at once").isEqualTo(3);
    assertThat(written).hasSize(24);
  }

  @Test
  void refresh_keyFoundOnlyByARecheck_isRefreshed() {
    RegistrationLookup stale =
        new RegistrationLookup() {
          @Override
          public Map<String, Registration> findAll(Collection<String> keys) {
            return Map.of();
          }

          @Override
          public Map<String, Registration> recheck(Collection<String> keys) {
            return lookup("fresh").findAll(keys);
          }
        };
    BulkRefresh bulk = new BulkRefresh(stale, TestRefreshers.inMemory(SETTINGS, gatedLoader, written::add), threads, 2);

    assertThat(bulk.refresh(List.of("fresh")).get(0).registered()).isTrue();
  }

  private static RegistrationLookup lookup(String... keys) {
    Map<String, Registration> registrations = new HashMap<>();
    Instant now = Instant.now();
    for (String key : keys) {
      registrations.put(key, Registration.of(key, "s", Map.of(), Duration.ofMinutes(1), now, now, RefreshPolicy.ALWAYS));
    }
    return wanted -> {
      Map<String, Registration> found = new HashMap<>();
      wanted.forEach(key -> { if (registrations.containsKey(key)) found.put(key, registrations.get(key)); });
      return found;
    };
  }
}
