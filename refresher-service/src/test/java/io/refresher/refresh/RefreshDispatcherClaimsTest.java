package io.refresher.refresh;

import io.refresher.wiring.Threads;
import io.refresher.failure.CacheUnavailableException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.refresher.registry.RefreshPolicy;
import io.refresher.registry.Registration;
import io.refresher.registry.RegistrationLookup;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The dispatcher's claims: a waiting key whose claim was taken over is dropped, not run; a waiting
 * key runs with the registration as it is when it runs, not as it was when claimed; the keys of a
 * claim whose reply was lost are found by their lease score and run.
 */
class RefreshDispatcherClaimsTest {

  private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");
  private static final RefreshSettings SETTINGS =
      new RefreshSettings(
          TtrSettings.fixed(Duration.ofSeconds(1)), 0.5, Duration.ofSeconds(5), Duration.ofSeconds(30), 0.0,
          Duration.ofMillis(100), Duration.ofSeconds(1), 1024);
  /** A 3 s claim lease: renewals every second for keys whose lease ends within 2 s. */
  private static final DispatchSettings DISPATCH =
      new DispatchSettings(2, 100, 10, Duration.ofMillis(20), Duration.ofSeconds(10), Duration.ofSeconds(3));

  private final FakeClaims claims = new FakeClaims();
  private final List<Registration> loaded = new CopyOnWriteArrayList<>();
  private final Map<String, Registration> registry = new ConcurrentHashMap<>();
  private RefreshDispatcher dispatcher;

  @AfterEach
  void stop() throws InterruptedException {
    if (dispatcher != null) {
      dispatcher.stop(Duration.ofSeconds(1));
    }
  }

  @Test
  void waitingKey_claimTakenOverByAnotherReplica_isDroppedNotRun() {
    register("taken", "source-a");
    claims.due.add(new DueIndex.DueKey("taken", System.currentTimeMillis() + 6_000));
    claims.lostOnRenewal.add("taken");

    start();

    await().atMost(Duration.ofSeconds(10)).until(() -> dispatcher.droppedClaims() == 1);
    assertThat(dispatcher.inFlight()).isZero();
    assertThat(loaded).isEmpty();
    assertThat(claims.renewals.get()).isPositive();
  }

  @Test
  void waitingKey_registrationChangedWhileItWaited_runsWithTheCurrentOne() {
    register("changing", "source-old");
    claims.due.add(new DueIndex.DueKey("changing", System.currentTimeMillis() + 2_500));

    start();
    await().atMost(Duration.ofSeconds(5)).until(() -> dispatcher.inFlight() == 1);
    register("changing", "source-new");

    await().atMost(Duration.ofSeconds(10)).until(() -> !loaded.isEmpty());
    assertThat(claims.renewals.get()).as("the waiting key's lease was renewed").isPositive();
    assertThat(loaded).singleElement().extracting(Registration::source).isEqualTo("source-new");
  }

  @Test
  void waitingKey_deletedWhileItWaited_isNotRunAndLeavesTheIndex() {
    register("deleted", "source-a");
    claims.due.add(new DueIndex.DueKey("deleted", System.currentTimeMillis() + 2_500));

    start();
    await().atMost(Duration.ofSeconds(5)).until(() -> dispatcher.inFlight() == 1);
    registry.remove("deleted");

    await().atMost(Duration.ofSeconds(10)).until(() -> claims.removed.contains("deleted"));
    assertThat(dispatcher.inFlight()).isZero();
    assertThat(loaded).isEmpty();
  }

  @Test
  void claimWhoseReplyWasLost_itsKeysFoundByLeaseScoreAndRun() {
    register("stranded:1", "source-a");
    register("stranded:2", "source-a");
    claims.failNextClaim = true;
    claims.takenByLostClaim.addAll(List.of("stranded:1", "stranded:2"));

    start();

    await().atMost(Duration.ofSeconds(10)).until(() -> loaded.size() == 2);
    assertThat(dispatcher.adoptedClaims()).isEqualTo(2);
    assertThat(loaded).extracting(Registration::key).containsExactlyInAnyOrder("stranded:1", "stranded:2");
  }

  /**
   * A renewal whose reply was lost may have run: Redis then holds the renewed scores. Before, the
   * tasks kept their old scores, the next renewal found every one "lost" and dropped them all, so
   * with one replica a waiting backlog stood still until the renewed lease ran out.
   */
  @Test
  void waitingKey_renewalReplyLostAfterItRan_keepsItsClaimAndRuns() {
    register("renewed", "source-a");
    claims.due.add(new DueIndex.DueKey("renewed", System.currentTimeMillis() + 4_500));
    claims.failNextRenewalAfterRunning = true;

    start();

    await().atMost(Duration.ofSeconds(10)).until(() -> !loaded.isEmpty());
    assertThat(claims.failNextRenewalAfterRunning).as("the renewal reply was lost").isFalse();
    assertThat(dispatcher.droppedClaims()).as("dropped").isZero();
    assertThat(loaded).extracting(Registration::key).containsExactly("renewed");
  }

  /**
   * A held key claimed again (it was rescheduled to a time within the lookahead while it waited)
   * takes the new claim's lease: before, the next renewal found its own claim gone and dropped it,
   * and the second claim was never started, so the key waited out a whole claim lease.
   */
  @Test
  void waitingKey_claimedAgainWhileHeld_runsOnceUnderTheNewClaim() {
    register("reclaimed", "source-a");
    long dueAt = System.currentTimeMillis() + 2_500;
    claims.due.add(new DueIndex.DueKey("reclaimed", dueAt));

    start();
    await().atMost(Duration.ofSeconds(5)).until(() -> claims.claimsOf("reclaimed") == 1);
    claims.due.add(new DueIndex.DueKey("reclaimed", dueAt));
    await().atMost(Duration.ofSeconds(5)).until(() -> claims.claimsOf("reclaimed") == 2);

    await().atMost(Duration.ofSeconds(10)).until(() -> !loaded.isEmpty());
    assertThat(dispatcher.droppedClaims()).as("dropped").isZero();
    assertThat(loaded).as("refreshes").hasSize(1);
  }

  /**
   * A key whose lock another refresh holds (a replica that was killed or froze mid-refresh) is due
   * again when that lock's lease ends. Before, it kept this claim's lease score and came back only
   * after a whole second claim lease: with a TTR shorter than that, the key expired.
   */
  @Test
  void lockedKey_dueAgainWhenTheHoldersLockEnds_notAfterAnotherClaimLease() {
    register("locked", "source-a");
    long lockHeldMillis = 700;
    KeyLocks heldElsewhere =
        new KeyLocks() {
          @Override
          public Optional<HeldLock> tryAcquire(String key, Duration lease) {
            return Optional.empty();
          }

          @Override
          public Duration remainingLease(String key) {
            return Duration.ofMillis(lockHeldMillis);
          }
        };
    long startedAt = System.currentTimeMillis();
    claims.due.add(new DueIndex.DueKey("locked", startedAt));

    start(TestRefreshers.inMemory(SETTINGS, registration -> "value", key -> {}, heldElsewhere));

    // The claim's lease score is at least startedAt + claimLease (3 s); the lock ends 0.7 s after the
    // refresh tried it, which is within the first second here; the key is due a lookahead (0.1 s)
    // after that.
    double latestLockEnd = startedAt + 1_000 + lockHeldMillis + DISPATCH.lookahead().toMillis() + 100;
    await()
        .atMost(Duration.ofSeconds(5))
        .untilAsserted(
            () ->
                assertThat(claims.scores.get("locked"))
                    .as("the key's score: the lock's end, not the claim lease's (%d ms)", DISPATCH.claimLease().toMillis())
                    .isBetween((double) startedAt + lockHeldMillis, latestLockEnd));
  }

  private void register(String key, String source) {
    registry.put(key, new Registration(key, source, Map.of(), Duration.ofMinutes(1), NOW, NOW, RefreshPolicy.ALWAYS, null));
  }

  private void start() {
    start(refresher());
  }

  private void start(Refresher refresher) {
    RegistrationLookup lookup =
        keys -> {
          Map<String, Registration> found = new java.util.HashMap<>();
          for (String key : keys) {
            Registration registration = registry.get(key);
            if (registration != null) {
              found.put(key, registration);
            }
          }
          return found;
        };
    dispatcher =
        new RefreshDispatcher(claims, claims, lookup, refresher, new RescheduleBuffer(claims), DISPATCH,
            RefreshListener.NONE, new LagTracker(), InstantSource.system(), Threads::named);
    dispatcher.start();
  }

  private Refresher refresher() {
    return TestRefreshers.inMemory(
        SETTINGS,
        registration -> {
          loaded.add(registration);
          return "value";
        },
        key -> {});
  }


  /** Hands out its due keys once; renews all but the keys marked lost; one claim may "lose its reply". */
  private static final class FakeClaims implements DueIndex, ClaimLeases {
    final List<DueKey> due = new CopyOnWriteArrayList<>();
    final Set<String> lostOnRenewal = ConcurrentHashMap.newKeySet();
    final List<String> takenByLostClaim = new CopyOnWriteArrayList<>();
    final List<String> removed = new CopyOnWriteArrayList<>();
    final AtomicInteger renewals = new AtomicInteger();
    /** The lease score each claimed key carries in the index, as the claim script leaves it. */
    final Map<String, Double> scores = new ConcurrentHashMap<>();
    final Map<String, Integer> claimCounts = new ConcurrentHashMap<>();
    volatile boolean failNextClaim;
    /** The next renewal moves the scores, as the script would, then its reply is lost. */
    volatile boolean failNextRenewalAfterRunning;
    volatile double lostScore = Double.NaN;

    @Override
    public synchronized List<DueKey> claim(long horizonMillis, int limit, double leaseScore) {
      if (failNextClaim) {
        failNextClaim = false;
        lostScore = leaseScore; // the script ran; only its reply was lost
        throw new CacheUnavailableException("claim of due keys failed: Redis unavailable (timeout)", null);
      }
      List<DueKey> claimed = new ArrayList<>(due);
      due.clear();
      for (DueKey key : claimed) {
        scores.put(key.key(), leaseScore);
        claimCounts.merge(key.key(), 1, Integer::sum);
      }
      return claimed;
    }

    int claimsOf(String key) {
      return claimCounts.getOrDefault(key, 0);
    }

    @Override
    public Set<String> renew(Map<String, Double> expectedScores, double renewedScore) {
      renewals.incrementAndGet();
      Set<String> lost = new java.util.HashSet<>();
      for (Map.Entry<String, Double> expected : expectedScores.entrySet()) {
        String key = expected.getKey();
        Double current = scores.get(key);
        if (lostOnRenewal.contains(key) || (current != null && !current.equals(expected.getValue()))) {
          lost.add(key);
        } else if (current != null) {
          scores.put(key, renewedScore);
        }
      }
      if (failNextRenewalAfterRunning) {
        failNextRenewalAfterRunning = false;
        throw new CacheUnavailableException("renewal of claims failed: Redis unavailable (timeout)", null);
      }
      return lost;
    }

    @Override
    public List<DueKey> claimedWith(double leaseScore) {
      if (leaseScore != lostScore) {
        return List.of();
      }
      List<DueKey> found = new ArrayList<>();
      takenByLostClaim.forEach(key -> found.add(new DueKey(key, System.currentTimeMillis())));
      return found;
    }

    @Override
    public List<DueKey> claim(long horizonMillis, int limit, long leaseUntilMillis) {
      return claim(horizonMillis, limit, (double) leaseUntilMillis);
    }

    @Override
    public void schedule(String key, long atMillis) {}

    @Override
    public void reschedule(Map<String, Long> atMillisByKey) {}

    @Override
    public int addMissing(Collection<String> keys, long atMillis) {
      return 0;
    }

    @Override
    public void remove(Collection<String> keys) {
      removed.addAll(keys);
    }

    @Override
    public OptionalLong plannedAt(String key) {
      return OptionalLong.empty();
    }

    @Override
    public long size() {
      return due.size();
    }
  }
}
