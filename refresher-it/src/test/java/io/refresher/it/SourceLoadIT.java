package io.refresher.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.refresher.redis.RedisSourceLoad;
import io.refresher.refresh.LoadBound;
import io.refresher.refresh.SourceLoad;
import io.refresher.refresh.SourceLoadListener;
import io.refresher.registry.RefreshPolicy;
import io.refresher.registry.Registration;
import io.refresher.testing.RealServers;
import io.refresher.testing.TestRedis;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;

/**
 * The datasources' load bound on a real Redis, shared by two "replicas" (two clients, two
 * instances): the concurrency bound holds for both together, the rate bound holds for both
 * together, a refresh that finds no room within its wait budget gives up, and the bound is set up
 * again after Redis lost its data.
 */
class SourceLoadIT {

  private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
  private static final Registration REGISTRATION =
      new Registration("k", "q", Map.of(), Duration.ofMinutes(1), T0, T0, RefreshPolicy.ALWAYS, null);

  private static TestRedis redis;
  private static RedissonClient first;
  private static RedissonClient second;

  @BeforeAll
  static void start() {
    redis = RealServers.newRedis();
    first = redis.connect();
    second = redis.connect();
  }

  @AfterAll
  static void stop() {
    first.shutdown();
    second.shutdown();
    redis.close();
  }

  @BeforeEach
  void clear() {
    first.getKeys().flushall();
  }

  private static RedisSourceLoad load(RedissonClient client, int perSecond, int concurrent, Duration maxWait) {
    RedisSourceLoad load =
        new RedisSourceLoad(
            client, List.of(new LoadBound("db", perSecond, concurrent, maxWait)), source -> "db", SourceLoadListener.NONE,
            Duration.ofSeconds(30));
    load.initialise();
    return load;
  }

  @Test
  void maxConcurrent_holdsForBothReplicasTogether() throws Exception {
    List<RedisSourceLoad> replicas = List.of(load(first, 0, 3, Duration.ofSeconds(20)), load(second, 0, 3, Duration.ofSeconds(20)));
    AtomicInteger running = new AtomicInteger();
    AtomicInteger most = new AtomicInteger();
    ExecutorService threads = Executors.newFixedThreadPool(12);
    try {
      List<Future<Boolean>> done = new ArrayList<>();
      for (int i = 0; i < 24; i++) {
        RedisSourceLoad replica = replicas.get(i % 2);
        done.add(threads.submit(() -> {
          Optional<SourceLoad.Admission> admission = replica.admit(REGISTRATION);
          if (admission.isEmpty()) {
            return false;
          }
          try (SourceLoad.Admission admitted = admission.get()) {
            assertThat(admitted.awaitRate()).isTrue();
            most.accumulateAndGet(running.incrementAndGet(), Math::max);
            TimeUnit.MILLISECONDS.sleep(50); // the query runs
            running.decrementAndGet();
          }
          return true;
        }));
      }
      for (Future<Boolean> admitted : done) {
        assertThat(admitted.get(60, TimeUnit.SECONDS)).isTrue();
      }
    } finally {
      threads.shutdownNow();
    }
    assertThat(most.get()).as("queries running at once, both replicas").isEqualTo(3);
  }

  @Test
  void maxQueriesPerSecond_holdsForBothReplicasTogether() throws Exception {
    int perSecond = 40;
    List<RedisSourceLoad> replicas =
        List.of(load(first, perSecond, 0, Duration.ofSeconds(20)), load(second, perSecond, 0, Duration.ofSeconds(20)));
    List<Long> permittedAt = Collections.synchronizedList(new ArrayList<>());
    ExecutorService threads = Executors.newFixedThreadPool(8);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int i = 0; i < 8; i++) {
        RedisSourceLoad replica = replicas.get(i % 2);
        done.add(threads.submit(() -> {
          for (int n = 0; n < 15; n++) {
            try (SourceLoad.Admission admitted = replica.admit(REGISTRATION).orElseThrow()) {
              assertThat(admitted.awaitRate()).isTrue();
              permittedAt.add(System.nanoTime());
            }
          }
          return null;
        }));
      }
      for (Future<?> future : done) {
        future.get(60, TimeUnit.SECONDS);
      }
    } finally {
      threads.shutdownNow();
    }
    List<Long> sorted = new ArrayList<>(permittedAt);
    Collections.sort(sorted);
    int busiest = 0;
    for (int from = 0, to = 0; to < sorted.size(); to++) {
      while (sorted.get(to) - sorted.get(from) >= TimeUnit.SECONDS.toNanos(1)) {
        from++;
      }
      busiest = Math.max(busiest, to - from + 1);
    }
    double seconds = (sorted.get(sorted.size() - 1) - sorted.get(0)) / 1e9;
    System.out.printf("source load: 120 permits over %.2f s, busiest second %d (bound %d)%n", seconds, busiest, perSecond);
    assertThat(busiest).as("permits in the busiest second, both replicas").isLessThanOrEqualTo(perSecond + 1);
    assertThat(seconds).as("120 permits at 40/s take at least two seconds").isGreaterThanOrEqualTo(2.0);
  }

  /**
   * On one replica, refreshes waiting for the rate are admitted in the order they came: a refill
   * claims its keys hottest first, and that order must survive the wait for permits. Redisson's
   * limiter alone let each waiter retry on its own clock, and whichever retry landed first took
   * the permit: of a refill's 30 keys, one or two of the hottest were passed by cooler ones for
   * up to 1.2 s.
   */
  @Test
  void waitersOfOneReplica_admittedInTheOrderTheyCame() throws Exception {
    int waiters = 8;
    RedisSourceLoad replica = load(first, 2, 0, Duration.ofSeconds(20)); // one permit per 525 ms
    try (SourceLoad.Admission drain = replica.admit(REGISTRATION).orElseThrow()) {
      assertThat(drain.awaitRate()).isTrue(); // the window's permit gone: the waiters below queue
    }
    List<Integer> admitted = Collections.synchronizedList(new ArrayList<>());
    ExecutorService threads = Executors.newFixedThreadPool(waiters);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int i = 0; i < waiters; i++) {
        int arrival = i;
        done.add(threads.submit(() -> {
          try (SourceLoad.Admission admission = replica.admit(REGISTRATION).orElseThrow()) {
            assertThat(admission.awaitRate()).isTrue();
            admitted.add(arrival);
          }
          return null;
        }));
        // The next one comes once this one has its place in the line (or was already let
        // through). Counted as waiting, it may not be in the line yet: a clean-clone run at the
        // lowest CPU priority saw the next waiter pass it there ([0, 1, 2, 3, 4, 6, 5, 7]).
        org.awaitility.Awaitility.await("waiter " + i + " in line")
            .atMost(Duration.ofSeconds(10))
            .pollInterval(Duration.ofMillis(1))
            .until(() -> replica.inLine("db") + admitted.size() == arrival + 1);
      }
      for (Future<?> future : done) {
        future.get(30, TimeUnit.SECONDS);
      }
    } finally {
      threads.shutdownNow();
    }
    assertThat(admitted).as("the order the waiters were admitted in").containsExactly(0, 1, 2, 3, 4, 5, 6, 7);
  }

  @Test
  void noRoomWithinTheWaitBudget_givesUpAfterIt() {
    RedisSourceLoad replica = load(first, 0, 1, Duration.ofMillis(300));
    try (SourceLoad.Admission held = replica.admit(REGISTRATION).orElseThrow()) {
      long started = System.nanoTime();
      Optional<SourceLoad.Admission> second = replica.admit(REGISTRATION);
      long waitedMillis = (System.nanoTime() - started) / 1_000_000;

      assertThat(second).isEmpty();
      assertThat(waitedMillis).isBetween(250L, 5_000L);
      assertThat(held.awaitRate()).isTrue();
    }
  }

  @Test
  void redisLostItsData_boundSetUpAgainOnFirstUse() {
    RedisSourceLoad replica = load(first, 10, 2, Duration.ofSeconds(5));
    replica.admit(REGISTRATION).orElseThrow().close();

    first.getKeys().flushall();

    Optional<SourceLoad.Admission> admission = replica.admit(REGISTRATION);
    assertThat(admission).isPresent();
    try (SourceLoad.Admission admitted = admission.get()) {
      assertThat(admitted.awaitRate()).isTrue();
    }
    assertThat(first.getPermitExpirableSemaphore("refresher:load:slots:db").getPermits()).isEqualTo(2);
  }
}
