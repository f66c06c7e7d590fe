package io.refresher.refresh;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.refresher.failure.RegistryUnavailableException;
import io.refresher.registry.RefreshPolicy;
import io.refresher.registry.Registration;
import io.refresher.registry.RegistrationLookup;
import io.refresher.registry.TemplatePattern;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The domain side of change capture: which keys row changes name, and applying a batch in full. */
class CaptureHandlerTest {

  private final ScheduledExecutorService threads = Executors.newScheduledThreadPool(2);
  private final DelayedTasks tasks = (task, delay) -> threads.schedule(task, delay.toNanos(), TimeUnit.NANOSECONDS);
  private final List<String> refreshed = Collections.synchronizedList(new ArrayList<>());
  private final List<String> evicted = Collections.synchronizedList(new ArrayList<>());
  private final AtomicInteger failuresLeft = new AtomicInteger();
  private final AtomicInteger registryFailuresLeft = new AtomicInteger();

  private final RegistrationLookup registry =
      new RegistrationLookup() {
        @Override
        public Map<String, Registration> findAll(Collection<String> keys) {
          if (registryFailuresLeft.getAndDecrement() > 0) {
            throw new RegistryUnavailableException("connection refused", null);
          }
          Map<String, Registration> found = new HashMap<>();
          for (String key : keys) {
            if (!key.startsWith("product:9")) {
              found.put(key, Registration.of(key, "product", Map.of(), Duration.ofHours(1), Instant.EPOCH, Instant.EPOCH, RefreshPolicy.ALWAYS));
            }
          }
          return found;
        }
      };

  private final AtomicInteger runs = new AtomicInteger();

  private final ChangeCoalescer changes =
      coalescer(
          key -> {
            runs.incrementAndGet();
            if (failuresLeft.getAndDecrement() > 0) {
              return ChangeCoalescer.Result.FAILED;
            }
            refreshed.add(key);
            return ChangeCoalescer.Result.DONE;
          });
  private final ChangeCoalescer evictions =
      coalescer(
          key -> {
            evicted.add(key);
            return ChangeCoalescer.Result.DONE;
          });

  private ChangeCoalescer coalescer(ChangeCoalescer.Action action) {
    return new ChangeCoalescer(
        action, tasks, java.time.InstantSource.system(), Duration.ZERO, 1000, Duration.ofSeconds(10), ChangeEvents.NONE);
  }

  private final CaptureHandler handler =
      new CaptureHandler(
          "catalog",
          Map.of("public.product", new CaptureTable("public.product", List.of(), List.of(TemplatePattern.parse("product:{id}")), null)),
          List::of,
          new ChangeCoverage(keys -> Map.of(), registry, Runnable::run),
          changes,
          evictions,
          ChangeEvents.NONE);

  @AfterEach
  void stop() {
    threads.shutdownNow();
  }

  private static RowChange update(long id) {
    return new RowChange("public.product", RowChange.Operation.UPDATE, Map.of("id", Long.toString(id)), Map.of());
  }

  @Test
  void apply_updatesAndInserts_refreshPath_deletesEvict_returnsOnceAllApplied() {
    boolean applied =
        handler.apply(
            List.of(
                update(1),
                new RowChange("public.product", RowChange.Operation.INSERT, Map.of("id", "2"), Map.of()),
                new RowChange("public.product", RowChange.Operation.DELETE, Map.of("id", "3"), Map.of())));

    assertThat(applied).isTrue();
    assertThat(refreshed).containsExactlyInAnyOrder("product:1", "product:2");
    assertThat(evicted).containsExactly("product:3");
  }

  @Test
  void apply_updateThatMovedTheRow_oldKeyEvicted() {
    handler.apply(List.of(new RowChange("public.product", RowChange.Operation.UPDATE, Map.of("id", "5"), Map.of("id", "4"))));

    assertThat(refreshed).containsExactly("product:5");
    assertThat(evicted).containsExactly("product:4");
  }

  @Test
  void apply_uncoveredKeysAndOtherTables_costNoRun() {
    boolean applied =
        handler.apply(
            List.of(update(90), update(91), new RowChange("public.order", RowChange.Operation.UPDATE, Map.of("id", "1"), Map.of())));

    assertThat(applied).isTrue();
    assertThat(refreshed).isEmpty();
    assertThat(evicted).isEmpty();
  }

  @Test
  void apply_runFails_triedAgainUntilApplied() {
    failuresLeft.set(2);

    assertThat(handler.apply(List.of(update(1)))).isTrue();

    assertThat(refreshed).containsExactly("product:1");
  }

  @Test
  void apply_registryUnreachable_triedAgainUntilItAnswers() {
    registryFailuresLeft.set(2);

    assertThat(handler.apply(List.of(update(1)))).isTrue();

    assertThat(refreshed).containsExactly("product:1");
  }

  @Test
  void apply_stoppedWhileRetrying_returnsFalse() throws Exception {
    failuresLeft.set(Integer.MAX_VALUE);
    CompletableFuture<Boolean> applying = CompletableFuture.supplyAsync(() -> handler.apply(List.of(update(1))));
    // it failed at least twice: it is in (or about to enter) its wait for a retry, which the stop ends
    await().atMost(Duration.ofSeconds(5)).until(() -> runs.get() >= 2);
    handler.stop();

    assertThat(applying.get(5, TimeUnit.SECONDS)).isFalse();
    assertThat(refreshed).isEmpty();
  }
}
