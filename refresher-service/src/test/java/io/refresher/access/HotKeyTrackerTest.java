package io.refresher.access;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.entry;
import static org.assertj.core.api.Assertions.withinPercentage;

import io.refresher.refresh.DueIndex;
import io.refresher.registry.RefreshPolicy;
import io.refresher.registry.Registration;
import io.refresher.registry.RegistrationLookup;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.function.Predicate;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

class HotKeyTrackerTest {

  private static final Instant START = Instant.parse("2024-05-01T12:00:00Z");
  private static final long START_MS = START.toEpochMilli();
  private static final Duration HALF_LIFE = Duration.ofSeconds(10);
  private static final double THRESHOLD = 10;
  private static final Duration COLD_AFTER = Duration.ofSeconds(60);
  private static final Duration SETTLE = Duration.ofSeconds(2);
  private static final Duration SAMPLE = Duration.ofSeconds(1);
  /** Reads per second far above the threshold: one second of them alone is a rate of about 60. */
  private static final long BUSY = 1000;
  /** No scenario here needs longer than this to play out. */
  private static final int MAX_SECONDS = 600;
  /** The tracker's catch-up bounds: seconds per sampling (at a 1 s interval) and per round trip. */
  private static final int PER_SAMPLING = HotKeyTracker.MIN_SECONDS_PER_SAMPLING;
  private static final int PER_READ = HotKeyTracker.SECONDS_PER_READ;

  private final MutableClock clock = new MutableClock(START);
  private final FakeAccessCounts counts = new FakeAccessCounts();
  private final InMemoryPopularityStore popularity = new InMemoryPopularityStore();
  private final InMemoryHotSetStore hot = new InMemoryHotSetStore();
  private final FakeLookup lookup = new FakeLookup();
  private final RecordingDueIndex due = new RecordingDueIndex();
  private final List<HotSetReport> reports = new ArrayList<>();
  private HotKeyTracker tracker = trackerWithCap(100);

  private HotKeyTracker trackerWithCap(int maxHotKeys) {
    return tracker(maxHotKeys, SAMPLE);
  }

  private HotKeyTracker tracker(int maxHotKeys, Duration sampleInterval) {
    AccessSettings settings =
        new AccessSettings(HALF_LIFE, THRESHOLD, COLD_AFTER, maxHotKeys, SETTLE, sampleInterval, 10_000, 100);
    return new HotKeyTracker(counts, popularity, hot, lookup, due, settings, reports::add, clock);
  }

  // --- promotion ---

  @Test
  void tick_coveredKeyWellAboveThreshold_isPromoted() {
    keptUpUntil(lastCompleteSecond() - 3);
    lookup.register("a", RefreshPolicy.HOT);
    readDuringLastSeconds(3, Map.of("a", BUSY));

    HotSetReport report = tracker.tick();

    assertThat(rate("a")).isGreaterThan(10 * THRESHOLD);
    assertThat(report.promoted()).containsExactly("a");
    assertThat(report.hotSize()).isEqualTo(1);
    assertThat(due.addMissingCalls).containsExactly(new AddMissing(List.of("a"), START_MS));
    assertThat(hot.all()).containsExactly(entry("a", START_MS));
    assertThat(reports).containsExactly(report);
  }

  @Test
  void tick_keyStaysHot_isPromotedOnlyOnce() {
    lookup.register("a", RefreshPolicy.HOT);
    liveUntil(report -> report.promoted().contains("a"), Map.of("a", BUSY));
    int promotingTicks = reports.size();

    liveFor(10, Map.of("a", BUSY));

    assertThat(reports.subList(promotingTicks, reports.size())).allSatisfy(report -> {
      assertThat(report.promoted()).isEmpty();
      assertThat(report.hotSize()).isEqualTo(1);
    });
    assertThat(due.addMissingCalls).hasSize(1);
    assertThat(hot.keys()).containsExactly("a");
  }

  @Test
  void tick_keyStaysHot_rewritesLastHotAtOnlyOnceAQuarterOfColdAfterOld() {
    lookup.register("a", RefreshPolicy.HOT);
    Map<String, Long> reads = Map.of("a", BUSY);
    liveUntil(report -> report.promoted().contains("a"), reads);
    long promotedAt = clock.millis();
    long quarter = COLD_AFTER.toMillis() / 4;

    while (clock.millis() + SAMPLE.toMillis() < promotedAt + quarter) {
      live(reads);

      assertThat(hot.lastHotAt("a")).as("at +%d ms", clock.millis() - promotedAt).isEqualTo(promotedAt);
    }
    live(reads);

    assertThat(clock.millis()).isEqualTo(promotedAt + quarter);
    assertThat(hot.lastHotAt("a")).isEqualTo(clock.millis());
  }

  @Test
  void tick_coveredKeyBelowThreshold_isNotHot() {
    lookup.register("a", RefreshPolicy.HOT);

    liveFor(60, Map.of("a", 5L));

    assertThat(rate("a")).isPositive().isLessThan(THRESHOLD);
    assertThat(reports).allSatisfy(report -> assertThat(report.promoted()).isEmpty());
    assertThat(hot.keys()).isEmpty();
    assertThat(due.addMissingCalls).isEmpty();
  }

  // --- unresolved keys ---

  @Test
  void tick_uncoveredKeys_reportedHottestFirstWithTheirRates_coveredOnesNot() {
    lookup.register("covered", RefreshPolicy.HOT);
    Map<String, Long> reads = Map.of("product:1", BUSY, "product:2", BUSY * 3, "covered", BUSY * 2);
    HotSetReport report = liveUntil(r -> r.unresolved() == 2, reads);

    assertThat(report.uncovered()).extracting(UncoveredKey::key).containsExactly("product:2", "product:1");
    assertThat(report.uncovered().get(0).rate()).isGreaterThan(report.uncovered().get(1).rate()).isPositive();
  }

  @Test
  void tick_keyAboveThresholdNotCovered_isUnresolvedAndLookedUpAgainOnlyAfter10s() {
    Map<String, Long> reads = Map.of("stranger", BUSY);
    HotSetReport first = liveUntil(report -> report.unresolved() > 0, reads);
    long firstSeenAt = clock.millis();

    assertThat(first.unresolved()).isEqualTo(1);
    assertThat(lookup.callsFor("stranger")).isEqualTo(1);

    for (int second = 1; second < 10; second++) {
      HotSetReport report = live(reads);

      assertThat(report.unresolved()).as("unresolved %d s after", second).isEqualTo(1);
      assertThat(lookup.callsFor("stranger")).as("lookups %d s after", second).isEqualTo(1);
    }

    HotSetReport recheck = live(reads);

    assertThat(clock.millis()).isEqualTo(firstSeenAt + 10_000);
    assertThat(lookup.callsFor("stranger")).isEqualTo(2);
    assertThat(recheck.unresolved()).isEqualTo(1);
    assertThat(reports).allSatisfy(report -> assertThat(report.promoted()).isEmpty());
    assertThat(hot.keys()).isEmpty();
    assertThat(due.addMissingCalls).isEmpty();
  }

  @Test
  void forgetUnresolved_keyCoveredSince_isPromotedAtNextTick() {
    Map<String, Long> reads = Map.of("late", BUSY);
    liveUntil(report -> report.unresolved() > 0, reads);
    lookup.register("late", RefreshPolicy.HOT);

    tracker.forgetUnresolved();
    HotSetReport report = live(reads);

    assertThat(report.promoted()).containsExactly("late");
    assertThat(report.unresolved()).isZero();
    assertThat(hot.keys()).containsExactly("late");
  }

  // --- self-healing ---

  @Test
  void tick_hotKeyMissingFromTheDueIndex_isReAddedAtTheNextFullCheck() {
    // As after a hot-set write that landed just after Redis lost its data: in the hot set, yet
    // never promoted (so never added to the due index) in this tracker's eyes.
    lookup.register("orphan", RefreshPolicy.HOT);
    hot.put("orphan", START_MS);
    live(Map.of("orphan", BUSY)); // the first tick is a full check
    due.addMissingCalls.clear();

    HotSetReport healed =
        liveUntil(report -> due.added().contains("orphan"), Map.of("orphan", BUSY));

    assertThat(healed.promoted()).as("not a promotion: it was hot all along").isEmpty();
    assertThat(hot.keys()).containsExactly("orphan");
  }

  // --- the cap ---

  @Test
  void tick_moreHotKeysThanCap_keepsTheHottest_andSwapsInANewHottest() {
    tracker = trackerWithCap(3);
    keptUpUntil(lastCompleteSecond());
    Map<String, Long> reads =
        Map.of("k1", 6000L, "k2", 5000L, "k3", 4000L, "k4", 3000L, "k5", 2000L, "k6", 1000L);
    reads.keySet().forEach(key -> lookup.register(key, RefreshPolicy.HOT));

    HotSetReport capped = liveFor(5, reads);

    assertThat(hot.keys()).containsExactlyInAnyOrder("k1", "k2", "k3");
    assertThat(capped.hotSize()).isEqualTo(3);
    assertThat(capped.leftOutByCap()).isEqualTo(3);
    assertThat(due.added()).containsExactlyInAnyOrder("k1", "k2", "k3");

    Map<String, Long> k6Hottest = new HashMap<>(reads);
    k6Hottest.put("k6", 100_000L);
    HotSetReport swap = liveUntil(report -> report.promoted().contains("k6"), k6Hottest);

    assertThat(swap.promoted()).containsExactly("k6");
    assertThat(swap.demoted()).containsExactly("k3");
    assertThat(swap.leftOutByCap()).isEqualTo(3);
    assertThat(hot.keys()).containsExactlyInAnyOrder("k1", "k2", "k6");
    assertThat(due.removed).containsExactly("k3");
    assertThat(due.added()).doesNotContain("k4", "k5");
  }

  @Test
  void tick_atTheCap_aSlightlyHotterNewcomerDoesNotDisplaceAHotKey_aClearlyHotterOneDoes() {
    tracker = trackerWithCap(1);
    List.of("incumbent", "rival").forEach(key -> lookup.register(key, RefreshPolicy.HOT));
    liveUntil(report -> report.promoted().contains("incumbent"), Map.of("incumbent", 1000L));

    // 5% hotter: within the hysteresis, so no swap, sampling after sampling.
    HotSetReport close = liveFor(60, Map.of("incumbent", 1000L, "rival", 1050L));

    assertThat(rate("rival")).isGreaterThan(rate("incumbent"));
    assertThat(hot.keys()).containsExactly("incumbent");
    assertThat(close.leftOutByCap()).isEqualTo(1);
    assertThat(due.added()).containsExactly("incumbent");
    assertThat(due.removed).isEmpty();

    // 50% hotter: it takes the place.
    HotSetReport clear =
        liveUntil(report -> report.promoted().contains("rival"), Map.of("incumbent", 1000L, "rival", 1500L));

    assertThat(clear.demoted()).containsExactly("incumbent");
    assertThat(hot.keys()).containsExactly("rival");
    assertThat(rate("rival")).isGreaterThan(rate("incumbent") * (1 + HotKeyTracker.CAP_HYSTERESIS));
  }

  @Test
  void tick_coolingKey_isKeptOnlyWhileTheCapLeavesRoom() {
    tracker = trackerWithCap(2);
    List.of("old", "n1", "n2").forEach(key -> lookup.register(key, RefreshPolicy.HOT));
    liveUntil(report -> report.promoted().contains("old"), Map.of("old", BUSY));
    liveUntil(report -> rate("old") < THRESHOLD, Map.of());
    long fellBelowAt = clock.millis();
    assertThat(hot.keys()).as("cooling").containsExactly("old");

    HotSetReport oneNew = liveUntil(report -> report.promoted().contains("n1"), Map.of("n1", BUSY));

    assertThat(oneNew.demoted()).isEmpty();
    assertThat(hot.keys()).containsExactlyInAnyOrder("old", "n1");

    HotSetReport twoNew =
        liveUntil(report -> report.promoted().contains("n2"), Map.of("n1", BUSY, "n2", BUSY));

    assertThat(twoNew.demoted()).containsExactly("old");
    assertThat(hot.keys()).containsExactlyInAnyOrder("n1", "n2");
    assertThat(due.removed).containsExactly("old");
    // pushed out, not aged out: coldAfter had not nearly passed
    assertThat(clock.millis() - fellBelowAt).isLessThan(COLD_AFTER.toMillis() / 2);
  }

  // --- cool-down and demotion ---

  @Test
  void tick_hotKeyStopsBeingRead_staysForColdAfterThenIsDemoted() {
    keptUpUntil(lastCompleteSecond());
    lookup.register("a", RefreshPolicy.HOT);
    liveFor(5, Map.of("a", BUSY));
    assertThat(hot.keys()).containsExactly("a");

    Cooling cooling = coolDown("a");

    // last-hot times are rewritten only once a quarter of coldAfter old: 0.75-1x coldAfter
    assertThat(cooling.demotedAtMillis() - cooling.fellBelowAtMillis())
        .isBetween(COLD_AFTER.toMillis() * 3 / 4, COLD_AFTER.toMillis());
    assertThat(cooling.demotion().demoted()).containsExactly("a");
    assertThat(cooling.demotion().hotSize()).isZero();
    assertThat(hot.keys()).isEmpty();
    assertThat(due.removed).containsExactly("a");
  }

  @Test
  void tick_demotedKeyWithPolicyAlways_leavesHotSetButStaysInDueIndex() {
    keptUpUntil(lastCompleteSecond());
    lookup.register("pinned", RefreshPolicy.ALWAYS);
    lookup.register("plain", RefreshPolicy.HOT);
    liveFor(5, Map.of("pinned", BUSY, "plain", BUSY));
    assertThat(hot.keys()).containsExactlyInAnyOrder("pinned", "plain");

    Cooling cooling = coolDown("pinned");

    assertThat(cooling.demotion().demoted()).containsExactlyInAnyOrder("pinned", "plain");
    assertThat(hot.keys()).isEmpty();
    assertThat(due.removed).containsExactly("plain");
  }

  @Test
  void tick_keyRegisteredWithoutReads_isDemotedAfterColdAfter() {
    lookup.register("fresh", RefreshPolicy.HOT);
    long registeredAt = clock.millis();
    hot.put("fresh", registeredAt);

    HotSetReport demotion = liveUntil(report -> report.demoted().contains("fresh"), Map.of());

    assertThat(clock.millis() - registeredAt)
        .isGreaterThan(COLD_AFTER.toMillis())
        .isLessThanOrEqualTo(COLD_AFTER.plus(SAMPLE).toMillis());
    assertThat(demotion.demoted()).containsExactly("fresh");
    assertThat(hot.keys()).isEmpty();
    assertThat(due.removed).containsExactly("fresh");
  }

  @Test
  void tick_hotKeyWhoseRegistrationWasDeleted_isDemotedAtTheNextFullCheck() {
    keptUpUntil(lastCompleteSecond());
    lookup.register("a", RefreshPolicy.HOT);
    Map<String, Long> reads = Map.of("a", BUSY);
    liveFor(5, reads);
    assertThat(hot.keys()).containsExactly("a");

    lookup.unregister("a");
    HotSetReport demotion = liveUntil(report -> report.demoted().contains("a"), reads);

    // the hot set's registrations are checked again every 30 ticks; the first tick was one
    assertThat(reports).hasSize(31);
    assertThat(demotion.unresolved()).isEqualTo(1);
    assertThat(hot.keys()).isEmpty();
    assertThat(due.removed).containsExactly("a");
  }

  // --- consuming the counters ---

  @Test
  void tick_firstTicks_catchUpOnTheLastMinuteOfCompleteSeconds() {
    long last = lastCompleteSecond();
    counts.add(last, Map.of("a", 3L, "b", 4L));
    counts.add(last - 59, Map.of("a", 5L));
    counts.add(last - 60, Map.of("a", 100L));

    HotSetReport first = tracker.tick();

    // Only two of the minute's seconds held reads: the bound counts those, so one sampling does it.
    assertThat(popularity.state()).contains(new PopularityStore.State(START_MS, last));
    assertThat(first.secondsConsumed()).isEqualTo(60);
    assertThat(first.readsCounted()).isEqualTo(12);
    assertThat(catchUp()).isEmpty();
    assertThat(counts.deletedSeconds).containsExactlyElementsOf(secondsBetween(last - 59, last));
    assertThat(counts.readSeconds).doesNotContain(last - 60);
    assertThat(popularity.score("a")).isPositive();
    assertThat(popularity.score("b")).isPositive();
  }

  @Test
  void tick_secondNotYetSettled_isConsumedOnlyOnceSettleHasPassed() {
    catchUp();
    long second = lastCompleteSecond() + 1;
    counts.add(second, Map.of("a", 9L));
    long settledAt = (second + 1) * 1000 + SETTLE.toMillis();

    clock.setMillis(settledAt - 1);
    HotSetReport early = tracker.tick();

    assertThat(early.secondsConsumed()).isZero();
    assertThat(early.readsCounted()).isZero();
    assertThat(counts.readSeconds).doesNotContain(second);
    assertThat(counts.deletedSeconds).doesNotContain(second);

    clock.setMillis(settledAt);
    HotSetReport settled = tracker.tick();

    assertThat(settled.secondsConsumed()).isEqualTo(1);
    assertThat(settled.readsCounted()).isEqualTo(9);
    assertThat(counts.deletedSeconds).endsWith(second);
    assertThat(popularity.state().orElseThrow().cursorSecond()).isEqualTo(second);
  }

  @Test
  void tick_consumedSecond_isNeverConsumedAgain() {
    long last = lastCompleteSecond();
    counts.add(last, Map.of("a", 7L));
    List<HotSetReport> first = catchUp();
    double scoreAfterFirst = popularity.score("a");

    HotSetReport sameInstant = tracker.tick();
    counts.add(last, Map.of("a", 7L)); // a late flush into a consumed second
    clock.advance(SAMPLE);
    HotSetReport next = tracker.tick();

    assertThat(first.stream().mapToLong(HotSetReport::readsCounted).sum()).isEqualTo(7);
    assertThat(sameInstant.secondsConsumed()).isZero();
    assertThat(sameInstant.readsCounted()).isZero();
    assertThat(next.secondsConsumed()).isEqualTo(1);
    assertThat(next.readsCounted()).isZero();
    assertThat(counts.readSeconds).doesNotHaveDuplicates().contains(last, last + 1);
    assertThat(counts.deletedSeconds).doesNotHaveDuplicates();
    assertThat(popularity.state().orElseThrow().cursorSecond()).isEqualTo(last + 1);
    assertThat(popularity.score("a")).isEqualTo(scoreAfterFirst);
  }

  @Test
  void tick_afterLongPause_readsOnlyTheLastMinute() {
    catchUp();
    clock.advance(Duration.ofMinutes(5));
    long last = lastCompleteSecond();
    counts.add(last - 60, Map.of("a", 100L)); // expired in Redis by now
    counts.add(last - 59, Map.of("a", 2L));
    int readBefore = counts.readSeconds.size();

    HotSetReport first = tracker.tick();
    List<HotSetReport> rest = catchUp();

    // One second of the last minute held reads: empty seconds do not count against the bound.
    assertThat(first.secondsConsumed()).isEqualTo(60);
    assertThat(first.readsCounted()).isEqualTo(2);
    assertThat(first.counterLagMillis()).isEqualTo(clock.millis() - (last + 1) * 1000);
    assertThat(rest).isEmpty();
    assertThat(counts.readSeconds.subList(readBefore, counts.readSeconds.size()))
        .containsExactlyElementsOf(secondsBetween(last - 59, last));
    assertThat(popularity.state().orElseThrow().cursorSecond()).isEqualTo(last);
  }

  // --- catching up after a pause ---

  @Test
  void tick_afterMinutePause_consumesAtMostTheBoundPerSamplingOldestFirst() {
    List<Long> pending = pausedFor(Duration.ofSeconds(60));
    long written = readInEach(pending, 3, 1);

    HotSetReport report = tracker.tick();

    List<Long> first = pending.subList(0, PER_SAMPLING);
    assertThat(pending).hasSize(60);
    assertThat(report.secondsConsumed()).isEqualTo(PER_SAMPLING);
    assertThat(report.readsCounted()).isEqualTo(written * PER_SAMPLING / pending.size());
    assertThat(counts.readSeconds).containsExactlyElementsOf(first);
    assertThat(counts.readAllCalls).isNotEmpty().allSatisfy(call -> assertThat(call).hasSizeLessThanOrEqualTo(PER_READ));
    assertThat(counts.deletedSeconds).containsExactlyElementsOf(first);
  }

  @Test
  void tick_successiveTicksAfterMinutePause_consumeEverySecondExactlyOnce() {
    List<Long> pending = pausedFor(Duration.ofSeconds(60));
    long written = readInEach(pending, 3, BUSY);
    long landmark = popularity.state().orElseThrow().landmarkMillis();

    List<HotSetReport> catchUp = catchUp();

    assertThat(catchUp).hasSize(60 / PER_SAMPLING);
    assertThat(catchUp).allSatisfy(report -> assertThat(report.secondsConsumed()).isEqualTo(PER_SAMPLING));
    assertThat(catchUp.stream().mapToLong(HotSetReport::readsCounted).sum()).isEqualTo(written);
    assertThat(counts.readSeconds).containsExactlyElementsOf(pending);
    assertThat(counts.deletedSeconds).containsExactlyElementsOf(pending);
    assertThat(counts.readAllCalls).allSatisfy(call -> assertThat(call).hasSizeLessThanOrEqualTo(PER_READ));
    // each second weighted at its own end, whichever sampling consumed it
    String key = "k" + pending.get(0) + ":0";
    assertThat(popularity.score(key))
        .isCloseTo(BUSY * tracker.decay().weight((pending.get(0) + 1) * 1000, landmark), withinPercentage(1e-9));
    HotSetReport idle = tracker.tick();
    assertThat(idle.secondsConsumed()).isZero();
    assertThat(counts.readSeconds).hasSameSizeAs(pending);
  }

  @Test
  void tick_catchingUp_cursorAdvancesOnlyOverConsumedSeconds() {
    List<Long> pending = pausedFor(Duration.ofSeconds(60));
    readInEach(pending, 1, 1);

    for (int tick = 1; tick <= 60 / PER_SAMPLING; tick++) {
      tracker.tick();

      long consumedUpTo = pending.get(tick * PER_SAMPLING - 1);
      assertThat(popularity.state().orElseThrow().cursorSecond()).as("cursor after tick %d", tick).isEqualTo(consumedUpTo);
      assertThat(counts.readSeconds).as("read after tick %d", tick).allSatisfy(second -> assertThat(second).isLessThanOrEqualTo(consumedUpTo));
      assertThat(counts.deletedSeconds).as("deleted after tick %d", tick).hasSize(tick * PER_SAMPLING);
    }
  }

  @Test
  void tick_catchingUp_reportsTheLagOfTheSecondsStillPending() {
    List<Long> pending = pausedFor(Duration.ofSeconds(60));
    readInEach(pending, 1, 1);
    long now = clock.millis();
    long last = pending.get(pending.size() - 1);

    List<HotSetReport> catchUp = catchUp();

    for (int tick = 1; tick <= catchUp.size(); tick++) {
      long consumedUpTo = pending.get(tick * PER_SAMPLING - 1);
      assertThat(catchUp.get(tick - 1).counterLagMillis()).as("lag after tick %d", tick).isEqualTo(now - (consumedUpTo + 1) * 1000);
    }
    assertThat(catchUp.get(0).counterLagMillis()).isGreaterThanOrEqualTo((60 - PER_SAMPLING) * 1000L);
    assertThat(catchUp.get(catchUp.size() - 1).counterLagMillis()).isEqualTo(now - (last + 1) * 1000).isLessThan(SETTLE.toMillis() + 1000);
  }

  @Test
  void tick_catchingUpWhileReadsGoOn_catchesUpAndConsumesEverySecondOnce() {
    // the first sampling comes a second later: then a full minute is pending, none of it expired
    List<Long> pending = pausedFor(Duration.ofSeconds(59));
    long written = readInEach(pending, 2, 1);
    long firstLiveSecond = Math.floorDiv(clock.millis(), 1000L);

    HotSetReport caughtUp = liveUntil(report -> report.counterLagMillis() < SETTLE.toMillis() + 1000, Map.of("a", 5L));

    // the backlog shrinks by the bound less the one new second per sampling: 60 s, 51 s, ... 6 s
    assertThat(reports).hasSize(7);
    // At most PER_SAMPLING seconds with reads per sampling (2 reads in each pending second, 5 in
    // each live one); empty seconds in between do not count.
    assertThat(reports).allSatisfy(report -> assertThat(report.readsCounted()).isLessThanOrEqualTo(PER_SAMPLING * 5L));
    long liveSecondsConsumed = lastCompleteSecond() - firstLiveSecond + 1;
    assertThat(liveSecondsConsumed).isPositive();
    assertThat(reports.stream().mapToLong(HotSetReport::readsCounted).sum()).isEqualTo(written + 5 * liveSecondsConsumed);
    assertThat(counts.readSeconds).doesNotHaveDuplicates().startsWith(pending.toArray(Long[]::new));
    assertThat(counts.readAllCalls).allSatisfy(call -> assertThat(call).hasSizeLessThanOrEqualTo(PER_READ));
    assertThat(popularity.state().orElseThrow().cursorSecond()).isEqualTo(lastCompleteSecond());
    assertThat(caughtUp.counterLagMillis()).isPositive();
  }

  @Test
  void tick_readFailsPartWayThroughASampling_consumesNothingAndTheNextSamplingReadsTheSameSeconds() {
    List<Long> pending = pausedFor(Duration.ofSeconds(60));
    long written = readInEach(pending, 1, 1);
    long cursor = popularity.state().orElseThrow().cursorSecond();
    counts.failReadAllCall(2);

    assertThatThrownBy(tracker::tick).isInstanceOf(IllegalStateException.class);

    assertThat(popularity.state().orElseThrow().cursorSecond()).isEqualTo(cursor);
    assertThat(popularity.size()).isZero();
    assertThat(counts.deletedSeconds).isEmpty();

    counts.readSeconds.clear();
    List<HotSetReport> catchUp = catchUp();

    assertThat(catchUp.get(0).secondsConsumed()).isEqualTo(PER_SAMPLING);
    assertThat(catchUp.stream().mapToLong(HotSetReport::readsCounted).sum()).isEqualTo(written);
    assertThat(counts.readSeconds).containsExactlyElementsOf(pending);
    assertThat(counts.deletedSeconds).containsExactlyElementsOf(pending);
  }

  @Test
  void tick_popularityWriteFailsPartWay_nextSamplingConsumesTheSameSecondsAndCountsEachReadOnce() {
    List<Long> pending = pausedFor(Duration.ofSeconds(60));
    long written = readInEach(pending, 3, BUSY);
    long cursor = popularity.state().orElseThrow().cursorSecond();
    popularity.failAfterAdding(PER_SAMPLING); // some keys added, then the store is unreachable

    assertThatThrownBy(tracker::tick).isInstanceOf(IllegalStateException.class);

    List<Long> first = pending.subList(0, PER_SAMPLING);
    PopularityStore.State failed = popularity.state().orElseThrow();
    assertThat(failed.cursorSecond()).isEqualTo(cursor);
    assertThat(failed.consuming()).contains(new PopularityStore.Seconds(first.get(0), first.get(first.size() - 1)));
    assertThat(counts.deletedSeconds).isEmpty();

    counts.readSeconds.clear();
    HotSetReport retry = tracker.tick();

    assertThat(counts.readSeconds).as("the unfinished seconds, exactly").containsExactlyElementsOf(first);
    assertThat(retry.secondsConsumed()).isEqualTo(PER_SAMPLING);
    assertThat(popularity.state().orElseThrow()).isEqualTo(new PopularityStore.State(START_MS, first.get(first.size() - 1)));
    List<HotSetReport> rest = catchUp();
    assertThat(retry.readsCounted() + rest.stream().mapToLong(HotSetReport::readsCounted).sum()).isEqualTo(written);
    for (long second : pending) {
      String key = "k" + second + ":0";
      assertThat(popularity.score(key))
          .as("score of %s", key)
          .isCloseTo(BUSY * tracker.decay().weight((second + 1) * 1000, START_MS), withinPercentage(1e-9));
    }
  }

  @Test
  void tick_unfinishedConsumption_isFinishedFirst_readingExactlyItsSeconds() {
    long last = lastCompleteSecond();
    counts.add(last - 5, Map.of("a", 3L));
    counts.add(last, Map.of("a", 4L));
    popularity.setState(
        new PopularityStore.State(START_MS, last - 10, Optional.of(new PopularityStore.Seconds(last - 9, last - 5))));

    HotSetReport report = tracker.tick();

    assertThat(counts.readSeconds).containsExactlyElementsOf(secondsBetween(last - 9, last - 5));
    assertThat(report.readsCounted()).isEqualTo(3);
    assertThat(popularity.state().orElseThrow()).isEqualTo(new PopularityStore.State(START_MS, last - 5));
    assertThat(tracker.tick().readsCounted()).as("the next sampling, the rest").isEqualTo(4);
  }

  @Test
  void tick_anotherSamplerConsumedTheSecondsMeanwhile_consumesAndDeletesNothing() {
    long last = lastCompleteSecond();
    keptUpUntil(last - 3);
    counts.add(last, Map.of("a", BUSY));
    // While this sampler reads the counters, another one consumes the same seconds.
    counts.whileReading(() -> popularity.setState(new PopularityStore.State(START_MS, last)));

    HotSetReport report = tracker.tick();

    assertThat(report.secondsConsumed()).isZero();
    assertThat(report.readsCounted()).isZero();
    assertThat(counts.deletedSeconds).as("the other sampler's to delete").isEmpty();
    assertThat(popularity.score("a")).isZero();
    assertThat(popularity.state().orElseThrow().cursorSecond()).isEqualTo(last);
  }

  @Test
  void tick_landmarkDueForRescaleWhileAConsumptionIsUnfinished_finishesItFirstAndRescalesNextTime() {
    long landmark = START_MS - 50 * HALF_LIFE.toMillis();
    long last = lastCompleteSecond();
    counts.add(last, Map.of("a", 5L));
    popularity.setState(new PopularityStore.State(landmark, last - 1, Optional.of(new PopularityStore.Seconds(last, last))));

    tracker.tick();

    assertThat(popularity.state().orElseThrow()).isEqualTo(new PopularityStore.State(landmark, last));
    assertThat(popularity.score("a")).isCloseTo(5 * tracker.decay().weight((last + 1) * 1000, landmark), withinPercentage(1e-9));
    double rate = rate("a");

    tracker.tick();

    assertThat(popularity.state().orElseThrow().landmarkMillis()).isEqualTo(START_MS);
    assertThat(rate("a")).isCloseTo(rate, withinPercentage(1e-7));
  }

  @Test
  void tick_sampleIntervalOf20s_consumesUpToTwoIntervalsPerSampling() {
    tracker = tracker(100, Duration.ofSeconds(20));
    List<Long> pending = pausedFor(Duration.ofSeconds(60));
    readInEach(pending, 1, 1);

    HotSetReport report = tracker.tick();

    // still faster than the seconds arriving between samplings, so it catches up
    assertThat(report.secondsConsumed()).isEqualTo(40);
    assertThat(counts.readAllCalls).allSatisfy(call -> assertThat(call).hasSizeLessThanOrEqualTo(PER_READ));
  }

  // --- landmark ---

  @Test
  void tick_landmarkManyHalfLivesOld_rescalesWithoutChangingRatesOrHotSet() {
    long landmark = START_MS - 50 * HALF_LIFE.toMillis();
    popularity.setState(new PopularityStore.State(landmark, lastCompleteSecond()));
    popularity.put("a", tracker.decay().score(100, START_MS, landmark));
    lookup.register("a", RefreshPolicy.HOT);
    hot.put("a", START_MS);

    HotSetReport report = tracker.tick();

    assertThat(popularity.state().orElseThrow().landmarkMillis()).isEqualTo(START_MS);
    assertThat(rate("a")).isCloseTo(100, withinPercentage(1e-7));
    assertThat(report.demoted()).isEmpty();
    assertThat(report.hotSize()).isEqualTo(1);
    assertThat(hot.keys()).containsExactly("a");
  }

  // --- scenario helpers ---

  /** The newest second the tracker may consume at the clock's time. */
  private long lastCompleteSecond() {
    return Math.floorDiv(clock.millis() - SETTLE.toMillis(), 1000L) - 1;
  }

  /** Counts these reads in each of the {@code seconds} newest complete seconds. */
  private void readDuringLastSeconds(int seconds, Map<String, Long> reads) {
    long last = lastCompleteSecond();
    for (long second = last - seconds + 1; second <= last; second++) {
      counts.add(second, reads);
    }
  }

  /** One sampling interval: the keys are read during the current second, then the clock moves on and the tracker samples. */
  private HotSetReport live(Map<String, Long> reads) {
    counts.add(Math.floorDiv(clock.millis(), 1000L), reads);
    clock.advance(SAMPLE);
    return tracker.tick();
  }

  private HotSetReport liveFor(int seconds, Map<String, Long> reads) {
    HotSetReport report = null;
    for (int second = 0; second < seconds; second++) {
      report = live(reads);
    }
    return report;
  }

  private HotSetReport liveUntil(Predicate<HotSetReport> done, Map<String, Long> reads) {
    for (int second = 0; second < MAX_SECONDS; second++) {
      HotSetReport report = live(reads);
      if (done.test(report)) {
        return report;
      }
    }
    throw new AssertionError("not reached within " + MAX_SECONDS + " s");
  }

  /** The key's rate as the tracker sees it now. */
  private double rate(String key) {
    long landmark = popularity.state().orElseThrow().landmarkMillis();
    return tracker.decay().rate(popularity.score(key), clock.millis(), landmark);
  }

  private record Cooling(long fellBelowAtMillis, long demotedAtMillis, HotSetReport demotion) {}

  /**
   * Lives without reads until the key is demoted; checks at every tick that it is not demoted while
   * its last-hot time is younger than coldAfter.
   */
  private Cooling coolDown(String key) {
    long fellBelowAt = -1;
    for (int second = 0; second < MAX_SECONDS; second++) {
      long lastHotAt = hot.lastHotAt(key);
      HotSetReport report = live(Map.of());
      long now = clock.millis();
      if (fellBelowAt < 0 && rate(key) < THRESHOLD) {
        fellBelowAt = now;
      }
      if (report.demoted().contains(key)) {
        assertThat(now - lastHotAt).as("demoted this long after its last-hot time").isGreaterThanOrEqualTo(COLD_AFTER.toMillis());
        assertThat(fellBelowAt).as("demoted while above the threshold").isPositive();
        return new Cooling(fellBelowAt, now, report);
      }
      assertThat(hot.keys()).contains(key);
    }
    throw new AssertionError(key + " not demoted within " + MAX_SECONDS + " s");
  }

  /**
   * A sampler that kept up until now, then was paused for {@code pause}: returns the complete
   * seconds now pending, oldest first.
   */
  private List<Long> pausedFor(Duration pause) {
    long cursor = lastCompleteSecond();
    keptUpUntil(cursor);
    clock.advance(pause);
    return secondsBetween(cursor + 1, lastCompleteSecond());
  }

  /** As if the sampler had been running and had consumed every second up to {@code cursor}. */
  private void keptUpUntil(long cursor) {
    popularity.setState(new PopularityStore.State(START_MS, cursor));
  }

  /**
   * In each second, {@code keysPerSecond} keys of that second only, read {@code readsPerKey} times
   * each; returns the reads.
   */
  private long readInEach(List<Long> seconds, int keysPerSecond, long readsPerKey) {
    for (long second : seconds) {
      Map<String, Long> reads = new HashMap<>();
      for (int i = 0; i < keysPerSecond; i++) {
        reads.put("k" + second + ":" + i, readsPerKey);
      }
      counts.add(second, reads);
    }
    return seconds.size() * keysPerSecond * readsPerKey;
  }

  /** Ticks without moving the clock until a tick consumes nothing; returns the ticks that did. */
  private List<HotSetReport> catchUp() {
    List<HotSetReport> consuming = new ArrayList<>();
    for (int tick = 0; tick < MAX_SECONDS; tick++) {
      HotSetReport report = tracker.tick();
      if (report.secondsConsumed() == 0) {
        return consuming;
      }
      consuming.add(report);
    }
    throw new AssertionError("not caught up within " + MAX_SECONDS + " ticks");
  }

  private static List<Long> secondsBetween(long first, long last) {
    return LongStream.rangeClosed(first, last).boxed().toList();
  }

  // --- fakes ---

  /** Access counts per second; remembers which seconds were read and deleted, in order. */
  static final class FakeAccessCounts implements AccessCounts {

    private final Map<Long, Map<String, Long>> bySecond = new HashMap<>();
    final List<Long> readSeconds = new ArrayList<>();
    final List<Long> deletedSeconds = new ArrayList<>();
    /** The seconds asked for in each {@link #readAll} call (one round trip in Redis). */
    final List<List<Long>> readAllCalls = new ArrayList<>();
    private int failingCall;
    private Runnable whileReading;

    /** Runs {@code action} during the next {@link #readAll} call, once (another sampler at work). */
    void whileReading(Runnable action) {
      whileReading = action;
    }

    /** The {@code call}-th next {@link #readAll} call (1 = the next) fails, once. */
    void failReadAllCall(int call) {
      failingCall = readAllCalls.size() + call;
    }

    void add(long second, Map<String, Long> reads) {
      Map<String, Long> counted = bySecond.computeIfAbsent(second, s -> new HashMap<>());
      reads.forEach((key, count) -> counted.merge(key, count, Long::sum));
    }

    @Override
    public Map<String, Long> read(long unixSecond) {
      readSeconds.add(unixSecond);
      return Map.copyOf(bySecond.getOrDefault(unixSecond, Map.of()));
    }

    @Override
    public Map<Long, Map<String, Long>> readAll(List<Long> unixSeconds) {
      readAllCalls.add(List.copyOf(unixSeconds));
      if (readAllCalls.size() == failingCall) {
        throw new IllegalStateException("counters unreachable");
      }
      if (whileReading != null) {
        Runnable action = whileReading;
        whileReading = null;
        action.run();
      }
      return AccessCounts.super.readAll(unixSeconds);
    }

    @Override
    public void delete(Collection<Long> unixSeconds) {
      deletedSeconds.addAll(unixSeconds);
      unixSeconds.forEach(bySecond::remove);
    }
  }

  /** Hot keys with their last-hot times in a map. */
  static final class InMemoryHotSetStore implements HotSetStore {

    private final Map<String, Long> lastHotAt = new HashMap<>();

    void put(String key, long atMillis) {
      lastHotAt.put(key, atMillis);
    }

    long lastHotAt(String key) {
      return lastHotAt.get(key);
    }

    Set<String> keys() {
      return Set.copyOf(lastHotAt.keySet());
    }

    @Override
    public Map<String, Long> all() {
      return new HashMap<>(lastHotAt);
    }

    @Override
    public void update(Map<String, Long> lastHotAtByKey, Collection<String> removed) {
      lastHotAt.putAll(lastHotAtByKey);
      removed.forEach(lastHotAt::remove);
    }
  }

  /** Registrations in a map; remembers the keys of every lookup. */
  static final class FakeLookup implements RegistrationLookup {

    private final Map<String, Registration> registrations = new HashMap<>();
    final List<Set<String>> calls = new ArrayList<>();

    void register(String key, RefreshPolicy policy) {
      registrations.put(key, Registration.of(key, "source", Map.of(), Duration.ofMinutes(5), START, START, policy));
    }

    void unregister(String key) {
      registrations.remove(key);
    }

    long callsFor(String key) {
      return calls.stream().filter(keys -> keys.contains(key)).count();
    }

    @Override
    public Map<String, Registration> findAll(Collection<String> keys) {
      calls.add(Set.copyOf(keys));
      Map<String, Registration> found = new HashMap<>();
      for (String key : keys) {
        Registration registration = registrations.get(key);
        if (registration != null) {
          found.put(key, registration);
        }
      }
      return found;
    }
  }

  record AddMissing(List<String> keys, long atMillis) {}

  /** Records what the tracker adds to and removes from the due index; supports nothing else. */
  static final class RecordingDueIndex implements DueIndex {

    final List<AddMissing> addMissingCalls = new ArrayList<>();
    final List<String> removed = new ArrayList<>();

    Set<String> added() {
      Set<String> added = new HashSet<>();
      addMissingCalls.forEach(call -> added.addAll(call.keys()));
      return added;
    }

    @Override
    public int addMissing(Collection<String> keys, long atMillis) {
      addMissingCalls.add(new AddMissing(List.copyOf(keys), atMillis));
      return keys.size();
    }

    @Override
    public void remove(Collection<String> keys) {
      removed.addAll(keys);
    }

    @Override
    public List<DueKey> claim(long horizonMillis, int limit, long leaseUntilMillis) {
      throw new UnsupportedOperationException();
    }

    @Override
    public void schedule(String key, long atMillis) {
      throw new UnsupportedOperationException();
    }

    @Override
    public void reschedule(Map<String, Long> atMillisByKey) {
      throw new UnsupportedOperationException();
    }

    @Override
    public OptionalLong plannedAt(String key) {
      throw new UnsupportedOperationException();
    }

    @Override
    public long size() {
      throw new UnsupportedOperationException();
    }
  }
}
