package io.refresher.prewarm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.refresher.access.AccessSettings;
import io.refresher.access.HotSetStore;
import io.refresher.access.PopularityArchive;
import io.refresher.access.PopularityKeeper;
import io.refresher.access.PopularityStore;
import io.refresher.prewarm.PrewarmPorts.PrewarmRecords;
import io.refresher.prewarm.PrewarmPorts.RefillSchedule;
import io.refresher.prewarm.PrewarmPorts.ValuePresence;
import io.refresher.failure.CacheUnavailableException;
import io.refresher.refresh.RefreshOutcome;
import io.refresher.refresh.Trigger;
import io.refresher.registry.RefreshPolicy;
import io.refresher.registry.Registration;
import io.refresher.registry.RegistrationLookup;
import io.refresher.registry.RegistrationRepository;
import io.refresher.registry.Registry;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What the refill plans (popular and covered, in-grace, always; only what is missing; hottest
 * first at the bound; surviving values kept at their schedule), that a start failing on a Redis
 * still coming back is tried again rather than abandoned, and that progress follows the values.
 */
class PrewarmerTest {

  /** Real time: the refill's progress checks look at the keys whose due time has come. */
  private static final Instant NOW = Instant.now();
  private static final AccessSettings ACCESS =
      new AccessSettings(Duration.ofMinutes(1), 1.0, Duration.ofMinutes(5), 1000, Duration.ofSeconds(2),
          Duration.ofSeconds(5), 100_000, 100_000);
  private static final Duration GRACE = Duration.ofMinutes(6);
  private static final Duration MARGIN = Duration.ofSeconds(5);

  private final InstantSource clock = InstantSource.system();
  private final FakeArchive archive = new FakeArchive();
  private final FakeRegistry registry = new FakeRegistry();
  private final FakeRedis redis = new FakeRedis();
  private final ScheduledExecutorService executor = Executors.newSingleThreadScheduledExecutor();
  private final AtomicLong epoch = new AtomicLong(7);
  private final Prewarmer prewarmer =
      new Prewarmer(
          archive, new PopularityKeeper(new NoPopularity(), archive, ACCESS, clock), registry, registry, redis, redis, redis,
          redis, ACCESS, GRACE, MARGIN, Map.of("db", 100), source -> new RefillPlanner.SourcePlace("db", 1), "replica-a", epoch::get, executor, clock);

  @AfterEach
  void stop() {
    executor.shutdownNow();
  }

  @Test
  void plan_popularCoveredInGraceAndAlways_onlyMissing_hottestFirstAtTheBound() {
    archive.saved("hot:a", 50, NOW);
    archive.saved("hot:b", 10, NOW);
    archive.saved("hot:cooled", 4, NOW.minus(Duration.ofMinutes(3))); // 4 × 2^-3 = 0.5 < 1: not hot now
    archive.saved("hot:uncovered", 80, NOW); // nothing computes it
    archive.saved("hot:present", 30, NOW);
    registry.add("hot:a", RefreshPolicy.HOT, NOW.minus(Duration.ofDays(1)));
    registry.add("hot:b", RefreshPolicy.HOT, NOW.minus(Duration.ofDays(1)));
    registry.add("hot:cooled", RefreshPolicy.HOT, NOW.minus(Duration.ofDays(1)));
    registry.add("hot:present", RefreshPolicy.HOT, NOW.minus(Duration.ofDays(1)));
    registry.add("grace:new", RefreshPolicy.HOT, NOW.minus(Duration.ofMinutes(1)));
    registry.add("always:x", RefreshPolicy.ALWAYS, NOW.minus(Duration.ofDays(1)));
    redis.present.put("hot:present", NOW.plus(Duration.ofMinutes(1)).toEpochMilli());

    List<RefillPlanner.Planned> plan = prewarmer.plan(NOW.toEpochMilli()); // planned as of NOW

    assertThat(plan).extracting(RefillPlanner.Planned::key).containsExactly("hot:a", "hot:b", "grace:new", "always:x");
    assertThat(plan).extracting(RefillPlanner.Planned::dueAtMillis)
        .containsExactly(NOW.toEpochMilli() + 0.0, NOW.toEpochMilli() + 10.0, NOW.toEpochMilli() + 20.0, NOW.toEpochMilli() + 30.0);
    assertThat(plan).extracting(RefillPlanner.Planned::hot).containsExactly(true, true, true, false);
    assertThat(redis.ifMissing)
        .as("a surviving value that lost its due entry is scheduled at its expiry less the margin, not now")
        .containsEntry("hot:present", (double) NOW.plus(Duration.ofMinutes(1)).minus(MARGIN).toEpochMilli());
  }

  @Test
  void onDataLoss_redisStillComingBack_startIsTriedAgainAndSucceeds() {
    archive.saved("hot:a", 50, NOW);
    registry.add("hot:a", RefreshPolicy.HOT, NOW.minus(Duration.ofDays(1)));
    redis.failingHotSetWrites.set(2);

    prewarmer.onDataLoss(7);

    // The refill writes the due index, then counts the run: wait for both (the count came a moment
    // after the write and a clean-clone run read 0 in between).
    await().atMost(Duration.ofSeconds(10)).until(() -> redis.earliest.containsKey("hot:a") && prewarmer.runs() > 0);
    assertThat(redis.hotSetWrites.get()).isEqualTo(3);
    assertThat(prewarmer.status().state()).isEqualTo(PrewarmStatus.RUNNING);
    assertThat(prewarmer.status().total()).isEqualTo(1);
    assertThat(prewarmer.runs()).isEqualTo(1);
  }

  @Test
  void progress_valuesComeBack_doneCountsAndTheRefillFinishes() {
    archive.saved("hot:a", 50, NOW);
    archive.saved("hot:b", 40, NOW);
    registry.add("hot:a", RefreshPolicy.HOT, NOW.minus(Duration.ofDays(1)));
    registry.add("hot:b", RefreshPolicy.HOT, NOW.minus(Duration.ofDays(1)));
    prewarmer.onDataLoss(7);
    await().atMost(Duration.ofSeconds(10)).until(() -> prewarmer.status().running());

    redis.present.put("hot:a", NOW.plus(Duration.ofMinutes(1)).toEpochMilli());
    await().atMost(Duration.ofSeconds(10)).until(() -> prewarmer.status().done() == 1);
    assertThat(prewarmer.status().left()).isEqualTo(1);
    redis.present.put("hot:b", NOW.plus(Duration.ofMinutes(1)).toEpochMilli());

    await().atMost(Duration.ofSeconds(10)).until(() -> PrewarmStatus.FINISHED.equals(prewarmer.status().state()));
    assertThat(prewarmer.status().done()).isEqualTo(2);
    assertThat(redis.saved.get(redis.saved.size() - 1).state()).isEqualTo(PrewarmStatus.FINISHED);
  }

  // Issue 18, point 2: a refill whose template was deleted stayed "running" for ever (done 92,
  // left 506 of 598 in PrewarmTemplateGoneIT), and every POST /v1/prewarm was refused.
  @Test
  void progress_registrationsDeletedDuringTheRefill_keysSkippedAsNotCovered_refillFinishes() {
    hotKeys("hot:a", "hot:b", "hot:c");
    prewarmer.onDataLoss(7);
    await().atMost(Duration.ofSeconds(10)).until(() -> prewarmer.status().running());

    redis.present.put("hot:a", NOW.plus(Duration.ofMinutes(1)).toEpochMilli());
    registry.byKey.remove("hot:b");
    registry.byKey.remove("hot:c");

    await().atMost(Duration.ofSeconds(10)).until(() -> PrewarmStatus.FINISHED.equals(prewarmer.status().state()));
    PrewarmStatus finished = prewarmer.status();
    assertThat(finished.done()).isEqualTo(1);
    assertThat(finished.skipped()).isEqualTo(2);
    assertThat(finished.left()).isZero();
    assertThat(finished.skippedByReason()).containsExactly(Map.entry(PrewarmStatus.NOT_COVERED, 2L));
    assertThat(registry.rechecks.get()).as("a key found in nothing is rechecked before it is dropped").isPositive();
  }

  @Test
  void refreshListener_registrationGone_keyLeavesThePlan_aStillCoveredOneStays() {
    hotKeys("hot:a", "hot:b");
    prewarmer.onDataLoss(7);
    await().atMost(Duration.ofSeconds(10)).until(() -> prewarmer.status().running());

    Registration gone = registry.byKey.remove("hot:a");
    prewarmer.refreshListener().onOutcome(gone, Trigger.SCHEDULED, new RefreshOutcome.Skipped(RefreshOutcome.Skipped.Reason.REGISTRATION_GONE));
    // Replaced: REGISTRATION_GONE too, but the replacement still covers the key.
    prewarmer.refreshListener().onOutcome(
        registry.byKey.get("hot:b"), Trigger.SCHEDULED, new RefreshOutcome.Skipped(RefreshOutcome.Skipped.Reason.REGISTRATION_GONE));

    await().atMost(Duration.ofSeconds(10)).until(() -> prewarmer.status().skipped() == 1);
    assertThat(prewarmer.status().skippedByReason()).containsExactly(Map.entry(PrewarmStatus.REGISTRATION_GONE, 1L));
    assertThat(prewarmer.status().running()).as("hot:b is still to come").isTrue();
    redis.present.put("hot:b", NOW.plus(Duration.ofMinutes(1)).toEpochMilli());
    await().atMost(Duration.ofSeconds(10)).until(() -> PrewarmStatus.FINISHED.equals(prewarmer.status().state()));
    assertThat(prewarmer.status().done()).isEqualTo(1);
  }

  @Test
  void progress_epochOvertakenByASecondLoss_keysLeftSkipped_refillFinishes() {
    hotKeys("hot:a", "hot:b");
    prewarmer.onDataLoss(7);
    await().atMost(Duration.ofSeconds(10)).until(() -> prewarmer.status().running());

    epoch.set(8); // another replica won the next loss

    await().atMost(Duration.ofSeconds(10)).until(() -> PrewarmStatus.FINISHED.equals(prewarmer.localStatus().orElseThrow().state()));
    PrewarmStatus finished = prewarmer.localStatus().orElseThrow();
    assertThat(finished.skippedByReason()).containsExactly(Map.entry(PrewarmStatus.EPOCH_OVERTAKEN, 2L));
    assertThat(finished.left()).isZero();
  }

  @Test
  void progress_sharedRecordTakenOverByANewerRefill_endsWithoutRewritingIt() {
    hotKeys("hot:a");
    prewarmer.onDataLoss(7);
    await().atMost(Duration.ofSeconds(10)).until(() -> prewarmer.status().running());

    redis.refuseSaves = true;

    await().atMost(Duration.ofSeconds(10)).until(() -> PrewarmStatus.FINISHED.equals(prewarmer.localStatus().orElseThrow().state()));
    assertThat(prewarmer.localStatus().orElseThrow().skippedByReason()).containsExactly(Map.entry(PrewarmStatus.SUPERSEDED, 1L));
    assertThat(redis.refusedSaves.get()).as("one refused save, no further attempt").isEqualTo(1);
  }

  private void hotKeys(String... keys) {
    for (String key : keys) {
      archive.saved(key, 50, NOW);
      registry.add(key, RefreshPolicy.HOT, NOW.minus(Duration.ofDays(1)));
    }
  }

  @Test
  void startManual_anotherReplicaLeadsOne_doesNotStartHere() {
    archive.saved("hot:a", 50, NOW);
    registry.add("hot:a", RefreshPolicy.HOT, NOW.minus(Duration.ofDays(1)));
    redis.otherLeader = true;

    prewarmer.startManual(7);

    assertThat(redis.earliest).isEmpty();
    assertThat(prewarmer.runs()).isZero();
  }

  private static Registration registration(String key, RefreshPolicy policy, Instant updatedAt) {
    return new Registration(key, "source", Map.of(), Duration.ofMinutes(1), updatedAt, updatedAt, policy, null);
  }

  private static final class FakeArchive implements PopularityArchive {
    final List<Saved> rows = new ArrayList<>();

    void saved(String key, double rate, Instant at) {
      rows.add(new Saved(key, rate, at));
    }

    @Override
    public void save(Map<String, Double> ratesByKey, Instant sampledAt, Instant forgetBefore) {}

    @Override
    public List<Saved> top(int limit) {
      List<Saved> sorted = new ArrayList<>(rows);
      sorted.sort((a, b) -> Double.compare(b.rate(), a.rate()));
      return sorted.subList(0, Math.min(limit, sorted.size()));
    }
  }

  /** Registrations by key; also the lookup (no templates here). */
  private static final class FakeRegistry implements RegistrationRepository, RegistrationLookup {
    final Map<String, Registration> byKey = new ConcurrentHashMap<>();
    final AtomicInteger rechecks = new AtomicInteger();

    void add(String key, RefreshPolicy policy, Instant updatedAt) {
      byKey.put(key, registration(key, policy, updatedAt));
    }

    @Override
    public Registry.Registered upsert(Registration registration) {
      throw new UnsupportedOperationException();
    }

    @Override
    public Optional<Registration> find(String key) {
      return Optional.ofNullable(byKey.get(key));
    }

    @Override
    public Map<String, Registration> findAll(Collection<String> keys) {
      Map<String, Registration> found = new HashMap<>();
      keys.forEach(key -> find(key).ifPresent(registration -> found.put(key, registration)));
      return found;
    }

    @Override
    public Map<String, Registration> recheck(Collection<String> keys) {
      rechecks.incrementAndGet();
      return findAll(keys);
    }

    @Override
    public List<Registration> page(String prefix, String after, int limit) {
      throw new UnsupportedOperationException();
    }

    @Override
    public boolean delete(String key, java.util.function.LongConsumer beforeCommit) {
      throw new UnsupportedOperationException();
    }

    @Override
    public List<String> keysAfter(String after, int limit, RefreshPolicy policy) {
      return byKey.values().stream()
          .filter(r -> r.policy() == policy && r.key().compareTo(after) > 0)
          .map(Registration::key)
          .sorted()
          .limit(limit)
          .toList();
    }

    @Override
    public List<String> hotKeysRegisteredSince(Instant since, int limit) {
      return byKey.values().stream()
          .filter(r -> r.policy() == RefreshPolicy.HOT && !r.updatedAt().isBefore(since))
          .map(Registration::key)
          .limit(limit)
          .toList();
    }

    @Override
    public long count() {
      return byKey.size();
    }

    @Override
    public Map<String, Long> countBySource() {
      Map<String, Long> counts = new HashMap<>();
      byKey.values().forEach(registration -> counts.merge(registration.source(), 1L, Long::sum));
      return counts;
    }
  }

  /** Values present (with their logical expiry), the due index, the hot set and the shared record. */
  private static final class FakeRedis implements ValuePresence, RefillSchedule, HotSetStore, PrewarmRecords {
    final Map<String, Long> present = new ConcurrentHashMap<>();
    final Map<String, Double> earliest = new ConcurrentHashMap<>();
    final Map<String, Double> ifMissing = new ConcurrentHashMap<>();
    final List<PrewarmStatus> saved = new java.util.concurrent.CopyOnWriteArrayList<>();
    final AtomicInteger failingHotSetWrites = new AtomicInteger();
    final AtomicInteger hotSetWrites = new AtomicInteger();
    volatile boolean otherLeader;
    volatile boolean refuseSaves;
    final AtomicInteger refusedSaves = new AtomicInteger();

    @Override
    public Map<String, Presence> presence(Collection<String> keys) {
      Map<String, Presence> result = new LinkedHashMap<>();
      keys.forEach(key -> result.put(key, present.containsKey(key) ? Presence.PRESENT : Presence.ABSENT));
      return result;
    }

    @Override
    public Map<String, Long> logicalExpiry(Collection<String> keys) {
      Map<String, Long> result = new HashMap<>();
      keys.forEach(key -> {
        if (present.containsKey(key)) {
          result.put(key, present.get(key));
        }
      });
      return result;
    }

    @Override
    public int scheduleEarliest(Map<String, Double> dueAtMillis) {
      earliest.putAll(dueAtMillis);
      return dueAtMillis.size();
    }

    @Override
    public int scheduleIfMissing(Map<String, Double> dueAtMillis) {
      ifMissing.putAll(dueAtMillis);
      return dueAtMillis.size();
    }

    @Override
    public Map<String, Long> all() {
      return Map.of();
    }

    @Override
    public void update(Map<String, Long> lastHotAt, Collection<String> removed) {
      hotSetWrites.incrementAndGet();
      if (failingHotSetWrites.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
        throw new CacheUnavailableException("updating the hot set failed: Redis unavailable (reconnecting)", null);
      }
    }

    @Override
    public boolean tryStart(PrewarmStatus status, long staleAfterMillis) {
      if (otherLeader) {
        return false;
      }
      saved.add(status);
      return true;
    }

    @Override
    public boolean save(PrewarmStatus status) {
      if (refuseSaves) {
        refusedSaves.incrementAndGet();
        return false;
      }
      saved.add(status);
      return true;
    }

    @Override
    public Optional<PrewarmStatus> load() {
      return saved.isEmpty() ? Optional.empty() : Optional.of(saved.get(saved.size() - 1));
    }
  }

  /** Popularity in Redis: nothing there (restored into it after a loss; not what is tested here). */
  private static final class NoPopularity implements PopularityStore {
    @Override
    public Optional<State> state() {
      return Optional.empty();
    }

    @Override
    public State initialise(State state) {
      return state;
    }

    @Override
    public boolean add(State on, Seconds seconds, Map<String, Double> increments) {
      return false;
    }

    @Override
    public boolean rescale(State on, double factor, long landmarkMillis) {
      return false;
    }

    @Override
    public void prune(double minScore, int maxEntries) {}

    @Override
    public List<Scored> descending(double minScore, int offset, int limit) {
      return List.of();
    }

    @Override
    public Map<String, Double> scores(Collection<String> keys) {
      return Map.of();
    }

    @Override
    public long size() {
      return 0;
    }

    @Override
    public boolean raise(long landmarkMillis, Map<String, Double> scores) {
      return true;
    }
  }
}
