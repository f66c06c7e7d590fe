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
import io.refresher.testing.RealServers;
import io.refresher.testing.SamplerOnRedis;
import io.refresher.testing.ScriptInterference;
import io.refresher.testing.TestRedis;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;
import org.redisson.client.RedisTimeoutException;
import org.redisson.client.codec.StringCodec;

/**
 * Popularity scores are relative to a landmark time; read against another landmark, every rate is
 * off by {@code exp(λ Δ)}. Under memory pressure Redis may evict any key (an {@code allkeys-*}
 * policy), so losing everything of popularity but the scores themselves must not change a rate:
 * the bug this guards against reset the landmark to now when its state hash was gone, inflating
 * every rate by up to e^30 and flooding the hot set.
 */
class PopularityStateLossIT {

  private static final String SCORES = "refresher:popularity:{refresher-hot}";
  private static final Duration HALF_LIFE = Duration.ofSeconds(10);
  private static final double THRESHOLD = 10;
  private static final AccessSettings SETTINGS =
      new AccessSettings(
          HALF_LIFE, THRESHOLD, Duration.ofSeconds(60), 1_000, Duration.ofSeconds(2), Duration.ofSeconds(1), 10_000, 100);
  /** Read at 2 reads/s: a fifth of the threshold, never hot. */
  private static final int COLD_KEYS = 200;

  private static TestRedis redis;
  private static RedissonClient redisson;

  private final DecayingRate decay = new DecayingRate(HALF_LIFE);
  private SamplerOnRedis.Clock clock;
  private HotKeyTracker tracker;
  private RedisPopularityStore popularity;

  @BeforeAll
  static void start() {
    redis = RealServers.newRedis();
    redisson = redis.connect();
  }

  @AfterAll
  static void stop() {
    redisson.shutdown();
    redis.close();
  }

  @BeforeEach
  void clear() {
    redisson.getKeys().flushdb();
    clock = new SamplerOnRedis.Clock(System.currentTimeMillis() / 1000 * 1000 + 500);
    tracker = SamplerOnRedis.tracker(redisson, SETTINGS, clock);
    popularity = new RedisPopularityStore(redisson);
  }

  @Test
  void everyPopularityKeyButTheScoresEvicted_nextSampling_ratesUnchangedAndHotSetNotFlooded() {
    // 100 s of reads, sampled every second: 10 half-lives after the landmark.
    HotSetReport before = null;
    for (int second = 0; second < 100; second++) {
      before = liveSecond();
    }
    assertThat(before.hotSize()).as("only the hot key is hot").isEqualTo(1);
    Map<String, Double> ratesBefore = rates();
    assertThat(ratesBefore.get("hot")).isGreaterThan(70);
    assertThat(ratesBefore.get("cold:0")).isBetween(1.4, 2.5);

    // Memory pressure: Redis evicts whatever popularity keeps beside the scores.
    List<String> evicted = evictAllButTheScores();

    HotSetReport after = liveSecond();

    Map<String, Double> ratesAfter = rates();
    assertThat(after.promoted()).as("cold keys promoted after %s was evicted", evicted).isEmpty();
    assertThat(after.hotSize()).isEqualTo(1);
    ratesBefore.forEach(
        (key, rate) ->
            assertThat(ratesAfter.get(key)).as("rate of %s after %s was evicted (was %s)", key, evicted, rate).isBetween(rate / 2, rate * 2));
  }

  @Test
  void everyPopularityKeyButTheScoresEvicted_inTheMiddleOfAConsumption_noReadCountedTwiceNorInflated() {
    liveSecond(); // popularity under way
    // 12,000 keys read in one second: more than two script calls of popularity writes. The second
    // call runs but its reply is lost, so the sampling fails part-way; then Redis evicts whatever
    // popularity keeps beside the scores, and the next sampling consumes the same seconds again.
    long second = SamplerOnRedis.lastCompleteSecond(SETTINGS, clock.millis()) + 1;
    Map<String, Long> reads = new HashMap<>();
    for (int i = 0; i < 12_000; i++) {
      reads.put("many:" + i, 5L); // a rate of about 0.3, far below the threshold
    }
    SamplerOnRedis.report(redisson, second, reads);
    clock.advance(Duration.ofSeconds(1));
    HotKeyTracker failing = SamplerOnRedis.tracker(ScriptInterference.replyLostAt(redisson, "ZINCRBY", 2), SETTINGS, clock);
    assertThatThrownBy(failing::tick).hasRootCauseInstanceOf(RedisTimeoutException.class);
    List<String> evicted = evictAllButTheScores();

    HotSetReport after = tracker.tick();

    assertThat(after.promoted()).as("keys promoted after %s was evicted", evicted).isEmpty();
    Map<String, Double> counted = SamplerOnRedis.countedReads(popularity, decay, reads.keySet(), second);
    long countedTwice = counted.values().stream().filter(count -> count > 5 * (1 + 1e-9)).count();
    assertThat(countedTwice).as("keys counted more than once after %s was evicted", evicted).isZero();
    assertThat(counted.values().stream().filter(count -> Math.abs(count - 5) < 1e-6).count())
        .as("keys counted once (the reads not yet added when the record was lost are given up)")
        .isGreaterThanOrEqualTo(5_000);
  }

  @Test
  void scoresKeptByAnOlderVersion_withTheirStateHash_areAdoptedWithTheirRates() {
    long landmark = clock.millis() - 100_000;
    long cursor = SamplerOnRedis.lastCompleteSecond(SETTINGS, clock.millis());
    redisson.getScoredSortedSet(SCORES, StringCodec.INSTANCE).add(decay.score(50, clock.millis(), landmark), "hot");
    redisson.getScoredSortedSet(SCORES, StringCodec.INSTANCE).add(decay.score(2, clock.millis(), landmark), "cold");
    redisson.getMap(SCORES + ":state", StringCodec.INSTANCE)
        .putAll(Map.of("landmark", Long.toString(landmark), "cursor", Long.toString(cursor)));

    HotSetReport report = tracker.tick();

    PopularityStore.State state = popularity.state().orElseThrow();
    assertThat(state).isEqualTo(new PopularityStore.State(landmark, cursor));
    assertThat(report.promoted()).containsExactly("hot");
    assertThat(decay.rate(popularity.scores(List.of("cold")).get("cold"), clock.millis(), landmark)).isCloseTo(2, within(1e-9));
  }

  @Test
  void scoresKeptByAnOlderVersion_withoutTheirStateHash_areDroppedNotInflated() {
    long landmark = clock.millis() - 100_000;
    for (int i = 0; i < COLD_KEYS; i++) {
      redisson.getScoredSortedSet(SCORES, StringCodec.INSTANCE).add(decay.score(2, clock.millis(), landmark), "cold:" + i);
    }

    HotSetReport report = tracker.tick();

    assertThat(report.promoted()).as("keys whose landmark is unknown, promoted").isEmpty();
    assertThat(popularity.size()).isZero();
  }

  private static List<String> evictAllButTheScores() {
    List<String> evicted = new ArrayList<>();
    redisson.getKeys().getKeysStreamByPattern(SCORES + ":*").forEach(evicted::add);
    evicted.forEach(key -> redisson.getKeys().delete(key));
    return evicted;
  }

  /** One second: every key read, the clock moves on, one sampling. */
  private HotSetReport liveSecond() {
    Map<String, Long> reads = new HashMap<>();
    reads.put("hot", 100L);
    for (int i = 0; i < COLD_KEYS; i++) {
      reads.put("cold:" + i, 2L);
    }
    SamplerOnRedis.report(redisson, SamplerOnRedis.lastCompleteSecond(SETTINGS, clock.millis()) + 1, reads);
    clock.advance(Duration.ofSeconds(1));
    return tracker.tick();
  }

  /** Every key's rate now, as the service reads it: its score against the landmark in force. */
  private Map<String, Double> rates() {
    PopularityStore.State state = popularity.state().orElseThrow();
    Map<String, Double> rates = new HashMap<>();
    popularity
        .descending(0, 0, 10_000)
        .forEach(scored -> rates.put(scored.key(), decay.rate(scored.score(), clock.millis(), state.landmarkMillis())));
    assertThat(rates).hasSize(COLD_KEYS + 1);
    return rates;
  }
}
