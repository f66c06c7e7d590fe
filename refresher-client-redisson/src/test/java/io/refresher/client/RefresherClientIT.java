package io.refresher.client;

import io.refresher.client.redisson.RedissonDriver;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.refresher.client.protocol.CacheKeys;
import io.refresher.client.protocol.MetaFields;
import io.refresher.embedded.EmbeddedRedis;
import java.io.IOException;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;
import org.redisson.client.RedisException;

/** What applications see: reads counted, early recomputation, single flight, degradation. */
class RefresherClientIT {

  /** January 2027: weeks ahead of Redis's clock while these tests run. */
  private static final long T0 = 1_800_000_000_000L;
  private static final Duration TTL = Duration.ofMinutes(5);

  private static EmbeddedRedis redis;
  private static RedissonClient redisson;

  private final List<RefresherClient> clients = new ArrayList<>();
  private final List<RedissonClient> processes = new ArrayList<>();

  @BeforeAll
  static void startRedis() {
    redis = EmbeddedRedis.start();
    redisson = TestRedis.connect(redis.url());
  }

  @AfterAll
  static void stopRedis() {
    if (redisson != null) {
      redisson.shutdown();
    }
    if (redis != null) {
      redis.close();
    }
  }

  @BeforeEach
  void emptyRedis() {
    redisson.getKeys().flushall();
  }

  @AfterEach
  void closeClients() {
    clients.forEach(RefresherClient::close);
    processes.forEach(RedissonClient::shutdown);
  }

  @Test
  void get_hitsAndMisses_areReturnedAndCounted() {
    redisson.getBucket("product:42").set("{\"id\":42}");
    RefresherClient client = client(RefresherClient.builder(RedissonDriver.of(redisson)));

    assertThat(client.get("product:42")).isEqualTo("{\"id\":42}");
    assertThat(client.get("product:42")).isEqualTo("{\"id\":42}");
    assertThat(client.get("product:43")).isNull();
    client.record("product:44");
    assertThat(client.flush()).isTrue();

    assertThat(TestRedis.accessCounts(redisson))
        .isEqualTo(Map.of("product:42", 2L, "product:43", 1L, "product:44", 1L));
  }

  @Test
  void getWithLoader_absentKey_loadsOnceAndCachesValueWithMetadata() {
    RefresherClient client = client(RefresherClient.builder(RedissonDriver.of(redisson)));
    AtomicInteger runs = new AtomicInteger();

    long before = TestRedis.redisMillis(redisson);
    String first = client.get("product:42", TTL, () -> "v" + runs.incrementAndGet());
    long after = TestRedis.redisMillis(redisson);
    String second = client.get("product:42", TTL, () -> "v" + runs.incrementAndGet());

    assertThat(first).isEqualTo("v1");
    assertThat(second).isEqualTo("v1");
    assertThat(runs).hasValue(1);
    assertThat(redisson.getBucket("product:42").get()).isEqualTo("v1");
    Map<String, String> meta = meta("product:42");
    long computedAt = Long.parseLong(meta.get(MetaFields.COMPUTED_AT));
    assertThat(computedAt).as("computedAt, by Redis's clock").isBetween(before, after);
    assertThat(meta)
        .containsEntry(MetaFields.EXPIRES_AT, Long.toString(computedAt + TTL.toMillis()))
        .containsEntry(MetaFields.SIZE, "2")
        .containsEntry(MetaFields.EPOCH, "0")
        .containsEntry(MetaFields.TOKEN, "0")
        .containsKey(MetaFields.DELTA);
    assertThat(redisson.getBucket("product:42").remainTimeToLive()).isPositive().isLessThanOrEqualTo(TTL.toMillis());
    assertThat(redisson.getBucket(CacheKeys.metaKey("product:42")).remainTimeToLive())
        .isPositive()
        .isLessThanOrEqualTo(TTL.toMillis());
    assertThat(redisson.getBucket(CacheKeys.flightLockName("product:42")).isExists()).isFalse();
    assertThat(client.stats().loaderRuns()).isEqualTo(1);
  }

  @Test
  void getWithLoader_clientValueCloseToExpiry_isRecomputedEarly() {
    // At most 1 s left, delta 100 ms, beta 1000: p >= exp(-1000 / 100000), and the seed fixes the draw.
    writeClientValue("product:42", "old", 100, TestRedis.redisMillis(redisson) + 1_000);
    RefresherClient client =
        client(RefresherClient.builder(RedissonDriver.of(redisson)).beta(1000).random(new SplittableRandom(42)));

    String value = client.get("product:42", TTL, () -> "new");

    assertThat(value).isEqualTo("new");
    assertThat(redisson.getBucket("product:42").get()).isEqualTo("new");
    Map<String, String> meta = meta("product:42");
    assertThat(meta)
        .containsEntry(MetaFields.EXPIRES_AT, Long.toString(Long.parseLong(meta.get(MetaFields.COMPUTED_AT)) + TTL.toMillis()));
    assertThat(client.stats().earlyRecomputations()).isEqualTo(1);
    assertThat(client.stats().loaderRuns()).isEqualTo(1);
  }

  @Test
  void getWithLoader_clientValueFarFromExpiry_isNotRecomputed() {
    // An hour left, delta 100 ms: p = exp(-36000), zero in doubles.
    writeClientValue("product:42", "old", 100, TestRedis.redisMillis(redisson) + Duration.ofHours(1).toMillis());
    RefresherClient client = client(RefresherClient.builder(RedissonDriver.of(redisson)).random(new SplittableRandom(42)));
    AtomicInteger runs = new AtomicInteger();

    for (int i = 0; i < 1_000; i++) {
      assertThat(client.get("product:42", TTL, () -> "new" + runs.incrementAndGet())).isEqualTo("old");
    }

    assertThat(runs).hasValue(0);
    assertThat(client.stats().earlyRecomputations()).isZero();
  }

  @Test
  void getWithLoader_valueWithoutMetadata_isReturnedAsIs() {
    redisson.getBucket("product:42").set("written-by-someone-else");
    RefresherClient client = client(RefresherClient.builder(RedissonDriver.of(redisson)).beta(1e9));

    assertThat(client.get("product:42", TTL, () -> "loaded")).isEqualTo("written-by-someone-else");
    assertThat(client.stats().loaderRuns()).isZero();
  }

  @Test
  void getWithLoader_earlyRecomputationFails_servesTheCurrentValue() {
    writeClientValue("product:42", "old", 100, TestRedis.redisMillis(redisson));
    RefresherClient client = client(RefresherClient.builder(RedissonDriver.of(redisson)));

    String value = client.get("product:42", TTL, () -> { throw new IOException("database down"); });

    assertThat(value).isEqualTo("old");
    assertThat(redisson.getBucket(CacheKeys.flightLockName("product:42")).isExists()).isFalse();
  }

  @Test
  void getWithLoader_serviceValueNotExpired_isNeverRecomputed() {
    writeServiceValue("product:42", "from-service", 3, 7, TestRedis.redisMillis(redisson) + 60_000);
    // Beta so large that a client-written value would be recomputed on every read; the client's
    // clock past the expiry by weeks, which must not matter: Redis's clock decides.
    RefresherClient client =
        client(RefresherClient.builder(RedissonDriver.of(redisson)).clock(new MutableClock(T0)).beta(1e9).random(new SplittableRandom(1)));
    AtomicInteger runs = new AtomicInteger();

    for (int i = 0; i < 1_000; i++) {
      assertThat(client.get("product:42", TTL, () -> "client" + runs.incrementAndGet())).isEqualTo("from-service");
    }

    assertThat(runs).hasValue(0);
    assertThat(client.stats().loaderRuns()).isZero();
    assertThat(client.stats().earlyRecomputations()).isZero();
  }

  @Test
  void getWithLoader_serviceValuePastItsExpiry_isRecomputedKeepingTheFence() {
    writeServiceValue("product:42", "from-service", 3, 7, TestRedis.redisMillis(redisson));
    RefresherClient client = client(RefresherClient.builder(RedissonDriver.of(redisson)));

    String value = client.get("product:42", TTL, () -> "from-client");

    assertThat(value).isEqualTo("from-client");
    assertThat(redisson.getBucket("product:42").get()).isEqualTo("from-client");
    Map<String, String> meta = meta("product:42");
    assertThat(meta)
        .containsEntry(MetaFields.EPOCH, "3")
        .containsEntry(MetaFields.TOKEN, "7")
        .containsEntry(MetaFields.EXPIRES_AT, Long.toString(Long.parseLong(meta.get(MetaFields.COMPUTED_AT)) + TTL.toMillis()));
    assertThat(client.stats().earlyRecomputations()).isZero();
  }

  @Test
  void getWithLoader_serviceValuePastExpiryWhileAnotherRecomputes_servesTheStaleValueAtOnce() {
    writeServiceValue("product:42", "stale", 3, 7, TestRedis.redisMillis(redisson) - 10_000);
    redisson.getBucket(CacheKeys.flightLockName("product:42")).set("someone-else", Duration.ofMinutes(1));
    RefresherClient client = client(RefresherClient.builder(RedissonDriver.of(redisson)));

    assertThat(client.get("product:42", TTL, () -> "from-client")).isEqualTo("stale");
    assertThat(client.stats().loaderRuns()).isZero();
  }

  /**
   * After the service evicted a value (a change of a key nobody keeps fresh), its fence and a
   * logical expiry up to a TTL ahead may stay in the metadata: the key is loaded once and cached,
   * not loaded on every read until that expiry (issue 18, point 5).
   */
  @Test
  void getWithLoader_serviceValueEvicted_isLoadedOnceAndCached() {
    writeServiceValue("product:42", "from-service", 3, 7, TestRedis.redisMillis(redisson) + 3_600_000);
    redisson.getBucket("product:42").delete();
    RefresherClient client = client(RefresherClient.builder(RedissonDriver.of(redisson)));
    AtomicInteger runs = new AtomicInteger();

    assertThat(client.get("product:42", TTL, () -> "loaded-" + runs.incrementAndGet())).isEqualTo("loaded-1");
    assertThat(client.get("product:42", TTL, () -> "loaded-" + runs.incrementAndGet())).isEqualTo("loaded-1");

    assertThat(runs).as("loader runs").hasValue(1);
    assertThat(redisson.getBucket("product:42").get()).isEqualTo("loaded-1");
  }

  /**
   * A client whose clock is 10 s fast neither recomputes nor overwrites the service's values in
   * their last 10 s: freshness is judged by Redis's clock, which the service writes by (point 9).
   */
  @Test
  void getWithLoader_clientClock10sFast_serviceValueInItsLast10s_isServedAndKept() {
    writeServiceValue("product:42", "from-service", 3, 7, TestRedis.redisMillis(redisson) + 5_000);
    InstantSource fast = InstantSource.offset(InstantSource.system(), Duration.ofSeconds(10));
    RefresherClient client = client(RefresherClient.builder(RedissonDriver.of(redisson)).clock(fast));

    assertThat(client.get("product:42", TTL, () -> "from-client")).isEqualTo("from-service");

    assertThat(redisson.getBucket("product:42").get()).isEqualTo("from-service");
    assertThat(client.stats().loaderRuns()).as("loader runs").isZero();
  }

  @Test
  void getWithLoader_manyCallersInTwoProcesses_runTheLoaderOnce() throws Exception {
    int callers = 32;
    // Two Redisson connections: two "processes" that share only Redis.
    RefresherClient first = client(RefresherClient.builder(RedissonDriver.of(process())).waitForOtherLoader(Duration.ofSeconds(20)));
    RefresherClient second = client(RefresherClient.builder(RedissonDriver.of(process())).waitForOtherLoader(Duration.ofSeconds(20)));
    AtomicInteger runs = new AtomicInteger();
    Loader slowQuery =
        () -> {
          int run = runs.incrementAndGet();
          Thread.sleep(300); // the slow query itself, not a wait for a condition
          return "{\"id\":42,\"run\":" + run + "}";
        };
    CountDownLatch start = new CountDownLatch(1);
    ExecutorService pool = Executors.newFixedThreadPool(callers);
    List<String> values = new ArrayList<>();
    try {
      List<Future<String>> results = new ArrayList<>();
      for (int i = 0; i < callers; i++) {
        RefresherClient client = i % 2 == 0 ? first : second;
        results.add(
            pool.submit(
                () -> {
                  start.await();
                  return client.get("product:42", TTL, slowQuery);
                }));
      }
      start.countDown();
      for (Future<String> result : results) {
        values.add(result.get(60, TimeUnit.SECONDS));
      }
    } finally {
      pool.shutdownNow();
    }

    assertThat(runs).hasValue(1);
    assertThat(values).hasSize(callers).containsOnly("{\"id\":42,\"run\":1}");
    assertThat(redisson.getBucket("product:42").get()).isEqualTo("{\"id\":42,\"run\":1}");
    assertThat(meta("product:42")).containsKeys(MetaFields.DELTA, MetaFields.EXPIRES_AT, MetaFields.COMPUTED_AT);
    assertThat(redisson.getBucket(CacheKeys.flightLockName("product:42")).isExists()).isFalse();
    assertThat(first.stats().fallbacks() + second.stats().fallbacks()).isZero();
  }

  @Test
  void getWithLoader_lockHeldByOneWhoNeverWrites_callersFallBackToTheirOwnLoader() throws Exception {
    redisson.getBucket(CacheKeys.flightLockName("product:42")).set("crashed-process", Duration.ofMinutes(1));
    RefresherClient client =
        client(RefresherClient.builder(RedissonDriver.of(redisson)).waitForOtherLoader(Duration.ofMillis(300)));
    AtomicInteger runs = new AtomicInteger();
    int callers = 8;
    CountDownLatch start = new CountDownLatch(1);
    ExecutorService pool = Executors.newFixedThreadPool(callers);
    List<String> values = new ArrayList<>();
    try {
      List<Future<String>> results = new ArrayList<>();
      for (int i = 0; i < callers; i++) {
        results.add(
            pool.submit(
                () -> {
                  start.await();
                  return client.get("product:42", TTL, () -> "loaded-" + runs.incrementAndGet());
                }));
      }
      start.countDown();
      for (Future<String> result : results) {
        values.add(result.get(60, TimeUnit.SECONDS));
      }
    } finally {
      pool.shutdownNow();
    }

    // One thread per process waited and loaded; the others shared its result.
    assertThat(values).hasSize(callers).containsOnly("loaded-1");
    assertThat(runs).hasValue(1);
    assertThat(client.stats().fallbacks()).isEqualTo(1);
    assertThat(redisson.getBucket("product:42").get()).isEqualTo("loaded-1");
    assertThat(redisson.getBucket(CacheKeys.flightLockName("product:42")).get()).isEqualTo("crashed-process");
  }

  @Test
  void getWithLoader_loaderThrowsChecked_callersGetLoaderExceptionAndTheLockIsFree() {
    RefresherClient client = client(RefresherClient.builder(RedissonDriver.of(redisson)));

    assertThatThrownBy(() -> client.get("product:42", TTL, () -> { throw new IOException("database down"); }))
        .isInstanceOf(LoaderException.class)
        .hasCauseInstanceOf(IOException.class);
    assertThatThrownBy(() -> client.get("product:42", TTL, () -> { throw new IllegalStateException("bad row"); }))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("bad row");

    assertThat(redisson.getBucket(CacheKeys.flightLockName("product:42")).isExists()).isFalse();
    assertThat(client.get("product:42", TTL, () -> "recovered")).isEqualTo("recovered");
  }

  @Test
  void getWithLoader_redisDown_loadsWithoutTheCache() {
    EmbeddedRedis ownRedis = EmbeddedRedis.start();
    RedissonClient ownConnection = TestRedis.connect(ownRedis.url());
    try {
      RefresherClient client = RefresherClient.builder(RedissonDriver.of(ownConnection)).build();
      assertThat(client.get("product:42", TTL, () -> "cached")).isEqualTo("cached");
      ownRedis.stop();

      assertThat(client.get("product:42", TTL, () -> "from-source")).isEqualTo("from-source");
      assertThat(client.get("product:43", TTL, () -> "from-source-too")).isEqualTo("from-source-too");
      assertThatThrownBy(() -> client.get("product:42")).isInstanceOf(RedisException.class);

      assertThat(client.stats().degradedLoads()).isEqualTo(2);
      client.close();
    } finally {
      ownConnection.shutdown();
      ownRedis.close();
    }
  }

  @Test
  void close_clientOnTheApplicationsRedisson_leavesItRunning() {
    RefresherClient client = RefresherClient.builder(RedissonDriver.of(redisson)).build();
    client.get("product:42");

    client.close();

    assertThat(redisson.isShutdown()).isFalse();
    assertThat(TestRedis.accessCounts(redisson)).containsEntry("product:42", 1L);
  }

  private RefresherClient client(RefresherClient.Builder builder) {
    RefresherClient client = builder.build();
    clients.add(client);
    return client;
  }

  private RedissonClient process() {
    RedissonClient connection = TestRedis.connect(redis.url());
    processes.add(connection);
    return connection;
  }

  private static Map<String, String> meta(String key) {
    return redisson.<String, String>getMap(CacheKeys.metaKey(key)).readAllMap();
  }

  /** As a client's write leaves it: epoch 0, timing for XFetch. */
  private static void writeClientValue(String key, String value, long deltaMillis, long expiresAt) {
    redisson.getBucket(key).set(value, Duration.ofHours(2));
    redisson
        .<String, String>getMap(CacheKeys.metaKey(key))
        .putAll(
            Map.of(
                MetaFields.COMPUTED_AT, Long.toString(expiresAt - TTL.toMillis()),
                MetaFields.DELTA, Long.toString(deltaMillis),
                MetaFields.EXPIRES_AT, Long.toString(expiresAt),
                MetaFields.EPOCH, "0",
                MetaFields.TOKEN, "0"));
  }

  /** As the service's write leaves it: a fence (epoch, token) above zero. */
  private static void writeServiceValue(String key, String value, long epoch, long token, long expiresAt) {
    redisson.getBucket(key).set(value, Duration.ofHours(2));
    redisson
        .<String, String>getMap(CacheKeys.metaKey(key))
        .putAll(
            Map.of(
                MetaFields.COMPUTED_AT, Long.toString(expiresAt - 10_000),
                MetaFields.DELTA, "200",
                MetaFields.EXPIRES_AT, Long.toString(expiresAt),
                MetaFields.SIZE, Integer.toString(value.length()),
                MetaFields.EPOCH, Long.toString(epoch),
                MetaFields.TOKEN, Long.toString(token)));
  }
}
