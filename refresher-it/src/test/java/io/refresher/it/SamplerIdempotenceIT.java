package io.refresher.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.refresher.access.AccessSettings;
import io.refresher.access.DecayingRate;
import io.refresher.access.HotKeyTracker;
import io.refresher.access.HotSetReport;
import io.refresher.access.PopularityStore;
import io.refresher.redis.RedisPopularityStore;
import io.refresher.embedded.EmbeddedRedisCluster;
import io.refresher.testing.ClusterTestRedis;
import io.refresher.testing.RealServers;
import io.refresher.testing.SamplerOnRedis;
import io.refresher.testing.ScriptInterference;
import io.refresher.testing.TestRedis;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;
import org.redisson.client.RedisTimeoutException;

/**
 * Consuming a second's access buckets is idempotent on a real Redis: every read reported is counted
 * exactly once, when a sampling fails part-way and the next one consumes the same seconds again,
 * and when two samplers consume the same seconds at once (Quartz's {@code
 * DisallowConcurrentExecution} holds only while the scheduler's database lock does: a replica cut
 * off from PostgreSQL may still be running a sampling when another takes over).
 *
 * <p>Popularity is written in chunks of a few thousand keys, one script each (Redis is never
 * blocked for long), so a sampling of more keys than a chunk holds is several writes: the tests
 * read 12,000 keys. A key's reads counted are its score divided by the weight of the second it was
 * read in.
 */
class SamplerIdempotenceIT {

  private static final Duration HALF_LIFE = Duration.ofSeconds(10);
  private static final AccessSettings SETTINGS =
      new AccessSettings(
          HALF_LIFE, 10, Duration.ofSeconds(60), 100_000, Duration.ofSeconds(2), Duration.ofSeconds(1), 1_000_000, 100);
  /** More than two chunks of popularity writes. */
  private static final int KEYS = 12_000;
  private static final Duration BARRIER_TIMEOUT = Duration.ofSeconds(20);

  private static TestRedis redis;
  private static RedissonClient redisson;
  private static RedissonClient otherReplica;

  private final DecayingRate decay = new DecayingRate(HALF_LIFE);
  private final ExecutorService samplers = Executors.newFixedThreadPool(2);
  private SamplerOnRedis.Clock clock;
  private RedisPopularityStore popularity;

  @BeforeAll
  static void start() {
    redis = RealServers.newRedis();
    redisson = redis.connect();
    otherReplica = redis.connect();
  }

  @AfterAll
  static void stop() {
    otherReplica.shutdown();
    redisson.shutdown();
    redis.close();
  }

  @BeforeEach
  void clear() {
    redisson.getKeys().flushdb();
    clock = new SamplerOnRedis.Clock(System.currentTimeMillis() / 1000 * 1000 + 500);
    popularity = new RedisPopularityStore(redisson);
  }

  @AfterEach
  void stopSamplers() {
    samplers.shutdownNow();
  }

  @Test
  void samplingFailsPartWay_nextSamplingConsumesTheSameSecondsAgain_everyReadCountedOnce() {
    failPartWayThenConsumeAgain(redisson);
  }

  @Test
  void samplingFailsPartWay_onARedisCluster_everyReadCountedOnce() {
    // Counters in 16 slots, popularity and its consumption record in one: every script's keys
    // share a slot, and the record of the failed sampling is found by the next.
    try (EmbeddedRedisCluster cluster = EmbeddedRedisCluster.start()) {
      RedissonClient onCluster = ClusterTestRedis.of(cluster).connect();
      try {
        popularity = new RedisPopularityStore(onCluster);
        failPartWayThenConsumeAgain(onCluster);
      } finally {
        onCluster.shutdown();
      }
    }
  }

  private void failPartWayThenConsumeAgain(RedissonClient client) {
    long second = lastCompleteSecond();
    Map<String, Long> reads = reads("k:");
    SamplerOnRedis.report(client, second, reads);
    // The second popularity write runs in Redis, but its reply is lost (a timeout): the sampling
    // fails after part of the keys were added.
    HotKeyTracker tracker = SamplerOnRedis.tracker(ScriptInterference.replyLostAt(client, "ZINCRBY", 2), SETTINGS, clock);

    assertThatThrownBy(tracker::tick).hasRootCauseInstanceOf(RedisTimeoutException.class);
    HotSetReport retry = tracker.tick();

    assertCountedOnce(reads, second);
    assertThat(retry.readsCounted()).isEqualTo(total(reads));
    assertThat(tracker.tick().readsCounted()).as("a later sampling").isZero();
    assertCountedOnce(reads, second);
  }

  @Test
  void twoSamplersConsumeTheSameSecondsAtOnce_everyReadCountedOnce() throws Exception {
    long second = lastCompleteSecond();
    Map<String, Long> reads = reads("k:");
    SamplerOnRedis.report(redisson, second, reads);
    // Both have read the counters before either writes popularity: the overlap of a replica that
    // lost its scheduler lock and the one that took over.
    CyclicBarrier bothRead = new CyclicBarrier(2);
    HotKeyTracker one = SamplerOnRedis.tracker(heldBackAtFirst("ZINCRBY", redisson, bothRead), SETTINGS, clock);
    HotKeyTracker other = SamplerOnRedis.tracker(heldBackAtFirst("ZINCRBY", otherReplica, bothRead), SETTINGS, clock);

    List<HotSetReport> reports = tickTogether(one, other);

    assertCountedOnce(reads, second);
    assertThat(reports.stream().mapToLong(HotSetReport::readsCounted).sum())
        .as("reads counted by the two samplers together")
        .isEqualTo(total(reads));
  }

  @Test
  void twoSamplersRescaleAtOnce_ratesUnchanged() throws Exception {
    // The landmark is set by a first sampling; 500 s later (50 half-lives) a key has a rate of 100
    // reads/s, and the next sampling rescales. Both samplers do, at once.
    SamplerOnRedis.tracker(redisson, SETTINGS, clock).tick();
    clock.advance(Duration.ofSeconds(500));
    long landmark = popularity.state().orElseThrow().landmarkMillis();
    popularity.raise(landmark, Map.of("steady", decay.score(100, clock.millis(), landmark)));
    CyclicBarrier bothRead = new CyclicBarrier(2);
    HotKeyTracker one = SamplerOnRedis.tracker(heldBackAtFirst("ZUNIONSTORE", redisson, bothRead), SETTINGS, clock);
    HotKeyTracker other = SamplerOnRedis.tracker(heldBackAtFirst("ZUNIONSTORE", otherReplica, bothRead), SETTINGS, clock);

    tickTogether(one, other);

    PopularityStore.State state = popularity.state().orElseThrow();
    assertThat(state.landmarkMillis()).as("landmark moved to now").isEqualTo(clock.millis());
    double steady = popularity.scores(List.of("steady")).getOrDefault("steady", 0.0);
    assertThat(decay.rate(steady, clock.millis(), state.landmarkMillis())).as("rate after both rescaled").isCloseTo(100, within(1e-6));
  }

  @Test
  void twoSamplersCatchingUpTogether_everyReadCountedOnce() throws Exception {
    // 30 s pending, 4,000 keys of their own in each: every sampling writes 10 s of them (40,000
    // keys, 8 chunks), and the two samplers race through them as it happens.
    long last = lastCompleteSecond();
    SamplerOnRedis.tracker(redisson, SETTINGS, clock).tick();
    clock.advance(Duration.ofSeconds(30));
    Map<Long, Map<String, Long>> readsBySecond = new HashMap<>();
    for (long s = last + 1; s <= lastCompleteSecond(); s++) {
      Map<String, Long> reads = new HashMap<>();
      for (int i = 0; i < 4_000; i++) {
        reads.put("s" + s + ":" + i, 100L + i % 3);
      }
      SamplerOnRedis.report(redisson, s, reads);
      readsBySecond.put(s, reads);
    }
    HotKeyTracker one = SamplerOnRedis.tracker(redisson, SETTINGS, clock);
    HotKeyTracker other = SamplerOnRedis.tracker(otherReplica, SETTINGS, clock);

    AtomicLong counted = new AtomicLong();
    CompletableFuture<Void> first = CompletableFuture.runAsync(() -> catchUp(one, counted), samplers);
    CompletableFuture<Void> next = CompletableFuture.runAsync(() -> catchUp(other, counted), samplers);
    CompletableFuture.allOf(first, next).get(2, TimeUnit.MINUTES);

    long written = 0;
    for (Map.Entry<Long, Map<String, Long>> entry : readsBySecond.entrySet()) {
      assertCountedOnce(entry.getValue(), entry.getKey());
      written += total(entry.getValue());
    }
    assertThat(counted.get()).as("reads counted by the two samplers together").isEqualTo(written);
  }

  // --- helpers ---

  private long lastCompleteSecond() {
    return SamplerOnRedis.lastCompleteSecond(SETTINGS, clock.millis());
  }

  /**
   * {@value #KEYS} keys read 100 to 104 times each: a rate far below the threshold (nothing becomes
   * hot) and far above the one under which keys are forgotten.
   */
  private static Map<String, Long> reads(String prefix) {
    Map<String, Long> reads = new HashMap<>();
    for (int i = 0; i < KEYS; i++) {
      reads.put(prefix + i, 100L + i % 5);
    }
    return reads;
  }

  private static long total(Map<String, Long> reads) {
    return reads.values().stream().mapToLong(Long::longValue).sum();
  }

  /** Each key's score is its reads in {@code second} times that second's weight: no more, no less. */
  private void assertCountedOnce(Map<String, Long> reads, long second) {
    Map<String, Double> counted = SamplerOnRedis.countedReads(popularity, decay, reads.keySet(), second);
    List<String> wrong = new ArrayList<>();
    double total = 0;
    for (Map.Entry<String, Long> read : reads.entrySet()) {
      double count = counted.get(read.getKey());
      total += count;
      if (Math.abs(count - read.getValue()) > 1e-6 * read.getValue()) {
        wrong.add(read.getKey() + ": " + read.getValue() + " read, " + count + " counted");
      }
    }
    assertThat(wrong.size())
        .as("keys not counted exactly once, of %d (%s…)", reads.size(), wrong.subList(0, Math.min(3, wrong.size())))
        .isZero();
    assertThat(total).isCloseTo(total(reads), within(1e-6 * total(reads)));
  }

  /**
   * {@code client}, whose first script containing {@code command} waits until the other sampler's
   * has reached the same point: both samplers have read the same state and counters.
   */
  private static RedissonClient heldBackAtFirst(String command, RedissonClient client, CyclicBarrier barrier) {
    AtomicBoolean held = new AtomicBoolean();
    return ScriptInterference.around(
        client,
        new ScriptInterference.Hook() {
          @Override
          public void before(String script) {
            if (script.contains(command) && held.compareAndSet(false, true)) {
              try {
                barrier.await(BARRIER_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
              } catch (BrokenBarrierException | TimeoutException e) {
                // The other sampler did not get here (it wrote nothing of that kind): go on alone.
              }
            }
          }
        });
  }

  private List<HotSetReport> tickTogether(HotKeyTracker one, HotKeyTracker other) throws Exception {
    CompletableFuture<HotSetReport> first = CompletableFuture.supplyAsync(one::tick, samplers);
    CompletableFuture<HotSetReport> next = CompletableFuture.supplyAsync(other::tick, samplers);
    return List.of(first.get(1, TimeUnit.MINUTES), next.get(1, TimeUnit.MINUTES));
  }

  /** Samples until a sampling finds nothing to consume, adding up the reads it counted. */
  private static void catchUp(HotKeyTracker tracker, AtomicLong counted) {
    for (int tick = 0; tick < 100; tick++) {
      HotSetReport report = tracker.tick();
      counted.addAndGet(report.readsCounted());
      if (report.secondsConsumed() == 0) {
        return;
      }
    }
    throw new AssertionError("not caught up within 100 samplings");
  }
}
