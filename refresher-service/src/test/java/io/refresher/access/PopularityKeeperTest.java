package io.refresher.access;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.withinPercentage;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PopularityKeeperTest {

  private static final Instant START = Instant.parse("2024-05-01T12:00:00Z");
  private static final long START_MS = START.toEpochMilli();
  private static final Duration HALF_LIFE = Duration.ofMinutes(1);
  private static final long H = HALF_LIFE.toMillis();
  private static final Duration SETTLE = Duration.ofSeconds(2);
  private static final int MAX_TRACKED = 1000;
  private static final int SNAPSHOT_SIZE = 3;
  private static final AccessSettings SETTINGS =
      new AccessSettings(
          HALF_LIFE, 10, Duration.ofMinutes(5), 100, SETTLE, Duration.ofSeconds(5), MAX_TRACKED, SNAPSHOT_SIZE);
  /** Tolerance of exact identities, in percent: only rounding error allowed. */
  private static final double EXACT = 1e-7;

  private final MutableClock clock = new MutableClock(START);
  private final InMemoryPopularityStore popularity = new InMemoryPopularityStore();
  private final FakeArchive archive = new FakeArchive();
  private final PopularityKeeper keeper = new PopularityKeeper(popularity, archive, SETTINGS, clock);
  private final DecayingRate decay = new DecayingRate(HALF_LIFE);

  // --- snapshot ---

  @Test
  void snapshot_noPopularityYet_savesNothing() {
    int saved = keeper.snapshot();

    assertThat(saved).isZero();
    assertThat(archive.saves).isEmpty();
  }

  @Test
  void snapshot_savesTheTopKeysWithTheirCurrentRates() {
    long landmark = START_MS - 3 * H;
    popularity.setState(new PopularityStore.State(landmark, 0));
    setRate(popularity, landmark, "a", 50);
    setRate(popularity, landmark, "b", 40);
    setRate(popularity, landmark, "c", 30);
    setRate(popularity, landmark, "d", 20);
    setRate(popularity, landmark, "e", 10);

    int saved = keeper.snapshot();

    assertThat(saved).isEqualTo(SNAPSHOT_SIZE);
    assertThat(archive.saves).hasSize(1);
    Save save = archive.saves.get(0);
    assertThat(save.rates().keySet()).containsExactly("a", "b", "c");
    assertThat(save.rates().get("a")).isCloseTo(50, withinPercentage(EXACT));
    assertThat(save.rates().get("b")).isCloseTo(40, withinPercentage(EXACT));
    assertThat(save.rates().get("c")).isCloseTo(30, withinPercentage(EXACT));
    assertThat(save.sampledAt()).isEqualTo(START);
    assertThat(save.forgetBefore()).isEqualTo(START.minus(HALF_LIFE.multipliedBy(20)));
  }

  // --- restore ---

  @Test
  void restore_keySavedOneHalfLifeAgo_comesBackAtHalfItsRate() {
    archive.rows.put("k", new PopularityArchive.Saved("k", 8, START.minus(HALF_LIFE)));

    int restored = keeper.restore();

    assertThat(restored).isEqualTo(1);
    assertThat(rate(popularity, "k")).isCloseTo(4, withinPercentage(EXACT));
  }

  @Test
  void restore_noState_initialisesItAtNowWithTheCursorABucketLifetimeBack() {
    archive.rows.put("k", new PopularityArchive.Saved("k", 8, START));
    long lastComplete = Math.floorDiv(START_MS - SETTLE.toMillis(), 1000L) - 1;

    keeper.restore();

    assertThat(popularity.state()).contains(new PopularityStore.State(START_MS, lastComplete - 60));
    assertThat(rate(popularity, "k")).isCloseTo(8, withinPercentage(EXACT));
  }

  @Test
  void restore_existingScores_keepTheHigherOfSavedAndCurrent() {
    long landmark = START_MS - 10 * H;
    PopularityStore.State state = new PopularityStore.State(landmark, 12345);
    popularity.setState(state);
    setRate(popularity, landmark, "busy", 100);
    setRate(popularity, landmark, "quiet", 1);
    Instant oneHalfLifeAgo = START.minus(HALF_LIFE);
    archive.rows.put("busy", new PopularityArchive.Saved("busy", 8, oneHalfLifeAgo));
    archive.rows.put("quiet", new PopularityArchive.Saved("quiet", 8, oneHalfLifeAgo));
    archive.rows.put("gone", new PopularityArchive.Saved("gone", 8, oneHalfLifeAgo));

    int restored = keeper.restore();

    assertThat(restored).isEqualTo(3);
    assertThat(rate(popularity, "busy")).isCloseTo(100, withinPercentage(EXACT));
    assertThat(rate(popularity, "quiet")).isCloseTo(4, withinPercentage(EXACT));
    assertThat(rate(popularity, "gone")).isCloseTo(4, withinPercentage(EXACT));
    assertThat(popularity.state()).contains(state);
  }

  @Test
  void restore_samplerRescalesMeanwhile_scoresComputedAgainAgainstTheNewLandmark() {
    long landmark = START_MS - 50 * H;
    popularity.setState(new PopularityStore.State(landmark, 12345));
    archive.rows.put("k", new PopularityArchive.Saved("k", 8, START.minus(HALF_LIFE)));
    popularity.beforeNextRaise(
        () -> popularity.rescale(popularity.state().orElseThrow(), decay.rescaleFactor(START_MS, landmark), START_MS));

    int restored = keeper.restore();

    assertThat(restored).isEqualTo(1);
    assertThat(popularity.state().orElseThrow().landmarkMillis()).isEqualTo(START_MS);
    assertThat(rate(popularity, "k")).isCloseTo(4, withinPercentage(EXACT));
  }

  @Test
  void restore_readsAtMostMaxTrackedKeys() {
    archive.rows.put("k", new PopularityArchive.Saved("k", 8, START));

    keeper.restore();

    assertThat(archive.topLimits).containsExactly(MAX_TRACKED);
  }

  @Test
  void restore_nothingSaved_changesNothing() {
    int restored = keeper.restore();

    assertThat(restored).isZero();
    assertThat(popularity.state()).isEmpty();
    assertThat(popularity.size()).isZero();
  }

  @Test
  void snapshotThenRestore_afterDataLoss_bringsRatesBackDecayedSinceTheSnapshot() {
    long landmark = START_MS - 2 * H;
    popularity.setState(new PopularityStore.State(landmark, 0));
    setRate(popularity, landmark, "a", 64);
    setRate(popularity, landmark, "b", 16);
    keeper.snapshot();

    clock.advance(HALF_LIFE.multipliedBy(2));
    InMemoryPopularityStore afterLoss = new InMemoryPopularityStore();
    new PopularityKeeper(afterLoss, archive, SETTINGS, clock).restore();

    assertThat(rate(afterLoss, "a")).isCloseTo(16, withinPercentage(EXACT));
    assertThat(rate(afterLoss, "b")).isCloseTo(4, withinPercentage(EXACT));
  }

  // --- helpers ---

  private void setRate(InMemoryPopularityStore store, long landmark, String key, double readsPerSecond) {
    store.put(key, decay.score(readsPerSecond, clock.millis(), landmark));
  }

  private double rate(InMemoryPopularityStore store, String key) {
    long landmark = store.state().orElseThrow().landmarkMillis();
    return decay.rate(store.score(key), clock.millis(), landmark);
  }

  record Save(Map<String, Double> rates, Instant sampledAt, Instant forgetBefore) {}

  /** Saved rates by key: a save replaces the keys' rows and forgets old ones, as PostgreSQL does. */
  static final class FakeArchive implements PopularityArchive {

    final Map<String, Saved> rows = new LinkedHashMap<>();
    final List<Save> saves = new ArrayList<>();
    final List<Integer> topLimits = new ArrayList<>();

    @Override
    public void save(Map<String, Double> ratesByKey, Instant sampledAt, Instant forgetBefore) {
      saves.add(new Save(new LinkedHashMap<>(ratesByKey), sampledAt, forgetBefore));
      ratesByKey.forEach((key, rate) -> rows.put(key, new Saved(key, rate, sampledAt)));
      rows.values().removeIf(row -> row.sampledAt().isBefore(forgetBefore));
    }

    @Override
    public List<Saved> top(int limit) {
      topLimits.add(limit);
      return rows.values().stream()
          .sorted(Comparator.comparingDouble(Saved::rate).reversed())
          .limit(limit)
          .toList();
    }
  }
}
