package io.refresher.refresh;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.refresher.registry.RefreshPolicy;
import io.refresher.registry.Registration;
import io.refresher.source.BatchForm;
import io.refresher.source.SourceException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ChangeBatchesTest {

  private static final Instant T0 = Instant.parse("2025-03-01T12:00:00Z");
  private static final RefreshSettings SETTINGS = TestRefreshers.SETTINGS;

  private final ExecutorService threads = Executors.newFixedThreadPool(2);
  /** The ids of each batch query, in order. */
  private final List<List<Object>> queries = new CopyOnWriteArrayList<>();
  /** Released by the test: the first query waits for it, so that others gather behind it. */
  private final CountDownLatch firstQueryMayEnd = new CountDownLatch(1);
  private final CountDownLatch firstQueryStarted = new CountDownLatch(1);

  private final ValueLoader loader =
      new ValueLoader() {
        /** A lone key's query. */
        @Override
        public String load(Registration registration) {
          query(List.of(registration));
          return "v" + registration.params().get("id");
        }

        @Override
        public Optional<BatchForm> batchForm(Registration registration) {
          return Optional.of(new BatchForm("SELECT", "id", 3, Duration.ZERO));
        }

        @Override
        public Map<String, BatchItem> loadBatch(List<Registration> registrations) throws SourceException {
          query(registrations);
          Map<String, BatchItem> items = new LinkedHashMap<>();
          for (Registration registration : registrations) {
            long id = (Long) registration.params().get("id");
            items.put(
                registration.key(),
                id == 5
                    ? BatchItem.failed(new SourceException(SourceException.Kind.NO_VALUE, "no row for id 5"))
                    : BatchItem.of(new Loaded.Value("v" + id, null, null)));
          }
          return items;
        }
      };

  private void query(List<Registration> registrations) {
    queries.add(registrations.stream().map(registration -> registration.params().get("id")).toList());
    if (queries.size() == 1) {
      firstQueryStarted.countDown();
      try {
        firstQueryMayEnd.await(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private final List<String> written = new CopyOnWriteArrayList<>();
  private final Refresher refresher = TestRefreshers.inMemory(SETTINGS, loader, written::add);
  private final ChangeBatches batches =
      new ChangeBatches(refresher, (task, delay) -> threads.execute(task));

  @AfterEach
  void stop() throws InterruptedException {
    firstQueryMayEnd.countDown();
    threads.shutdownNow();
    threads.awaitTermination(10, TimeUnit.SECONDS);
  }

  private static Registration product(long id) {
    return Registration.of("product:" + id, "product", Map.of("id", id), Duration.ofMinutes(5), T0, T0, RefreshPolicy.ALWAYS);
  }

  @Test
  void aLoneKeyGoesAtOnce_keysArrivingMeanwhileGoTogetherAfterIt_maxBatchPerQuery() throws Exception {
    CompletableFuture<RefreshOutcome> first = batches.refresh(product(1), 3).toCompletableFuture();
    assertThat(firstQueryStarted.await(10, TimeUnit.SECONDS)).as("the lone key's query started without waiting").isTrue();

    List<CompletableFuture<RefreshOutcome>> later = new ArrayList<>();
    for (long id = 2; id <= 6; id++) {
      later.add(batches.refresh(product(id), 3).toCompletableFuture());
    }
    assertThat(queries).as("nothing else runs while the source's query runs").hasSize(1);
    firstQueryMayEnd.countDown();

    CompletableFuture.allOf(later.toArray(CompletableFuture[]::new)).get(10, TimeUnit.SECONDS);
    assertThat(first.get()).isInstanceOf(RefreshOutcome.Refreshed.class);
    assertThat(queries).containsExactly(List.of(1L), List.of(2L, 3L, 4L), List.of(5L, 6L));
    assertThat(later.get(3).get()).as("id 5, whose row is missing, fails alone").isInstanceOf(RefreshOutcome.Failed.class);
    for (int i : new int[] {0, 1, 2, 4}) {
      assertThat(later.get(i).get()).isInstanceOf(RefreshOutcome.Refreshed.class);
    }
    assertThat(written).containsExactlyInAnyOrder("product:1", "product:2", "product:3", "product:4", "product:6");
  }

  @Test
  void aKeyComingAfterTheLineEmptiedStartsAQueryOfItsOwn() throws Exception {
    firstQueryMayEnd.countDown();
    assertThat(batches.refresh(product(1), 3).toCompletableFuture().get(10, TimeUnit.SECONDS))
        .isInstanceOf(RefreshOutcome.Refreshed.class);
    await().atMost(Duration.ofSeconds(10)).until(() -> queries.size() == 1);
    assertThat(batches.refresh(product(2), 3).toCompletableFuture().get(10, TimeUnit.SECONDS))
        .isInstanceOf(RefreshOutcome.Refreshed.class);
    assertThat(queries).containsExactly(List.of(1L), List.of(2L));
  }
}
