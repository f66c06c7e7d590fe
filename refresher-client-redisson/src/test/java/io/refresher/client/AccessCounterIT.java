package io.refresher.client;

import io.refresher.client.redisson.RedissonDriver;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.refresher.client.protocol.AccessProtocol;
import io.refresher.embedded.EmbeddedRedis;
import io.refresher.embedded.RespConnection;
import java.net.URI;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import org.redisson.config.ConstantDelay;

/** Access counting against a real Redis: exact, bounded, and patient with an outage. */
class AccessCounterIT {

  private static EmbeddedRedis redis;
  private static RedissonClient redisson;

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
  @AfterEach
  void emptyRedis() {
    redisson.getKeys().flushall();
  }

  @Test
  void record_manyThreadsWhileFlushing_everyReadReachesRedisExactlyOnce() throws Exception {
    int threads = 8;
    int readsPerThread = 200_000;
    int keys = 100;
    AccessCounter counter =
        AccessCounter.builder(RedissonDriver.of(redisson)).flushInterval(Duration.ofMillis(20)).build();
    CountDownLatch start = new CountDownLatch(1);
    ExecutorService readers = Executors.newFixedThreadPool(threads);
    try {
      Future<?>[] done = new Future<?>[threads];
      for (int t = 0; t < threads; t++) {
        int offset = t * 7;
        done[t] =
            readers.submit(
                () -> {
                  start.await();
                  for (int i = 0; i < readsPerThread; i++) {
                    counter.record("product:" + ((i + offset) % keys));
                  }
                  return null;
                });
      }
      // Besides the 20 ms flusher, flushes back to back: many more drain/record races.
      AtomicBoolean reading = new AtomicBoolean(true);
      Thread eagerFlusher =
          new Thread(
              () -> {
                while (reading.get()) {
                  counter.flush();
                }
              });
      eagerFlusher.start();
      start.countDown();
      try {
        for (Future<?> reader : done) {
          reader.get(60, TimeUnit.SECONDS);
        }
      } finally {
        reading.set(false);
        eagerFlusher.join();
      }
    } finally {
      readers.shutdownNow();
    }
    counter.close();

    Map<String, Long> counts = TestRedis.accessCounts(redisson);
    long perKey = (long) threads * readsPerThread / keys;
    assertThat(counts).hasSize(keys);
    assertThat(counts.values()).allMatch(count -> count == perKey);
    AccessCounter.Stats stats = counter.stats();
    assertThat(stats.dropped()).isZero();
    assertThat(stats.recorded()).isEqualTo((long) threads * readsPerThread);
    assertThat(stats.flushed()).isEqualTo(stats.recorded());
    assertThat(stats.pendingKeys()).isZero();
  }

  @Test
  void record_moreDistinctKeysThanTheBound_staysBoundedNeverBlocksAndCountsTheDropped() throws Exception {
    int maxPendingKeys = 1000;
    int distinctKeys = 200_000;
    // A long interval: only the early flushes that a full map requests make room.
    AccessCounter counter =
        AccessCounter.builder(RedissonDriver.of(redisson))
            .maxPendingKeys(maxPendingKeys)
            .flushInterval(Duration.ofSeconds(60))
            .build();
    AtomicBoolean recording = new AtomicBoolean(true);
    AtomicInteger largestSeen = new AtomicInteger();
    Thread sampler =
        new Thread(
            () -> {
              while (recording.get()) {
                largestSeen.accumulateAndGet(counter.stats().pendingKeys(), Math::max);
              }
            });
    sampler.start();
    try {
      for (int i = 0; i < distinctKeys; i++) {
        counter.record("user:" + i);
        if (i % 100 == 0) {
          largestSeen.accumulateAndGet(counter.stats().pendingKeys(), Math::max);
        }
      }
    } finally {
      recording.set(false);
      sampler.join();
    }
    counter.close();

    AccessCounter.Stats stats = counter.stats();
    assertThat(largestSeen.get()).isPositive().isLessThanOrEqualTo(maxPendingKeys);
    assertThat(stats.recorded()).isEqualTo(distinctKeys);
    assertThat(stats.dropped()).isPositive();
    assertThat(stats.flushed() + stats.dropped()).isEqualTo(stats.recorded());
    Map<String, Long> counts = TestRedis.accessCounts(redisson);
    assertThat(TestRedis.total(counts)).isEqualTo(stats.flushed());
    assertThat(counts.values()).allMatch(count -> count == 1L);
  }

  @Test
  void flush_whileRedisIsDown_keepsTheCountsUntilRedisIsBack() {
    // A Redis of its own: this test stops it, which must not disturb the others.
    EmbeddedRedis ownRedis = EmbeddedRedis.start();
    RedissonClient ownClient = TestRedis.connect(ownRedis.url());
    try {
      AccessCounter counter =
          AccessCounter.builder(RedissonDriver.of(ownClient)).flushInterval(Duration.ofSeconds(60)).build();
      for (int i = 0; i < 5; i++) {
        counter.record("product:1");
      }
      counter.record("product:2");
      assertThat(counter.flush()).isTrue();

      ownRedis.stop();
      for (int i = 0; i < 3; i++) {
        counter.record("product:1");
      }
      counter.record("product:3");
      assertThat(counter.flush()).isFalse();
      assertThat(counter.stats().flushFailures()).isPositive();
      assertThat(counter.stats().pendingKeys()).isEqualTo(2);
      assertThat(counter.stats().dropped()).isZero();

      // Redis comes back empty (it lost the first flush with its data); the kept counts arrive.
      ownRedis.restart();
      await().atMost(Duration.ofSeconds(30)).until(counter::flush);
      counter.close();

      assertThat(TestRedis.accessCounts(ownClient)).isEqualTo(Map.of("product:1", 3L, "product:3", 1L));
      assertThat(counter.stats().flushed()).isEqualTo(10);
      assertThat(counter.stats().dropped()).isZero();
    } finally {
      ownClient.shutdown();
      ownRedis.close();
    }
  }

  @Test
  void flush_whoseAnswerTimesOut_isNotSentAgain_soNoReadCountsTwice() throws Exception {
    // An application's client with a short timeout and Redisson's usual retries.
    Config config = new Config();
    config
        .useSingleServer()
        .setAddress(redis.url())
        .setTimeout(300)
        .setRetryAttempts(3)
        .setRetryDelay(new ConstantDelay(Duration.ofMillis(50)));
    RedissonClient impatient = Redisson.create(config);
    try {
      AccessCounter counter =
          AccessCounter.builder(RedissonDriver.of(impatient)).flushInterval(Duration.ofSeconds(60)).build();
      impatient.getKeys().count(); // connected before the pause
      for (int i = 0; i < 1000; i++) {
        counter.record("product:1");
      }

      // Redis takes no command for 2 s: the flush's script waits in Redis and runs when the pause
      // ends, long after the client stopped waiting for its answer (and, before, sent it again).
      pauseAll(Duration.ofSeconds(2));
      boolean flushedDuringPause = counter.flush();
      await().atMost(Duration.ofSeconds(10)).ignoreExceptions().until(() -> TestRedis.total(TestRedis.accessCounts(redisson)) > 0);
      await().atMost(Duration.ofSeconds(10)).until(counter::flush);
      counter.close();

      long inRedis = TestRedis.total(TestRedis.accessCounts(redisson));
      AccessCounter.Stats stats = counter.stats();
      assertThat(flushedDuringPause).as("the flush during the pause succeeded").isFalse();
      assertThat(inRedis).as("reads in Redis, of 1,000 recorded").isEqualTo(1000);
      assertThat(stats.unconfirmed()).as("reads whose write's answer was lost").isEqualTo(1000);
      assertThat(stats.flushed()).isZero();
      assertThat(stats.recorded()).isEqualTo(stats.flushed() + stats.dropped() + stats.unconfirmed());
    } finally {
      impatient.shutdown();
    }
  }

  /** {@code CLIENT PAUSE <ms> ALL}: in force when this returns; commands sent next wait for its end. */
  private static void pauseAll(Duration pause) throws Exception {
    try (RespConnection connection = RespConnection.open(URI.create(redis.url()).getPort(), Duration.ofSeconds(5))) {
      connection.call("CLIENT", "PAUSE", Long.toString(pause.toMillis()), "ALL");
    }
  }

  @Test
  void flush_writesTheProtocolsBuckets() {
    MutableClock clock = new MutableClock(1_795_983_684_738L);
    AccessCounter counter =
        AccessCounter.builder(RedissonDriver.of(redisson)).flushInterval(Duration.ofSeconds(60)).clock(clock).build();
    Map<String, Long> expected = new HashMap<>();
    // 20,000 keys: about 1,250 per shard, more than one script call takes.
    for (int i = 0; i < 40_007; i++) {
      counter.record("item:" + (i % 20_000));
      expected.merge("item:" + (i % 20_000), 1L, Long::sum);
    }

    assertThat(counter.flush()).isTrue();
    counter.close();

    String bucket = AccessProtocol.bucketKey(AccessProtocol.shardOf("item:5"), 1_795_983_684L);
    assertThat(redisson.getMap(bucket).get("item:5")).isEqualTo("3");
    long ttl = redisson.getBucket(bucket).remainTimeToLive();
    assertThat(ttl).isPositive().isLessThanOrEqualTo(AccessProtocol.BUCKET_TTL_SECONDS * 1000L);
    assertThat(TestRedis.accessCounts(redisson)).isEqualTo(expected);
  }
}
