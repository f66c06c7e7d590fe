package io.refresher.refresh;

import io.refresher.wiring.Threads;
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
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The dispatcher's handling of claimed keys without a registration: a key that a recheck finds
 * (a template created a moment ago through another replica) is refreshed, not dropped; a key still
 * unknown is removed from the due index. While the registry is unavailable, claimed keys go back
 * to the index and the dispatcher waits for their retry time instead of claiming every poll.
 */
class RefreshDispatcherTest {

  private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");
  private static final RefreshSettings SETTINGS =
      new RefreshSettings(
          TtrSettings.fixed(Duration.ofSeconds(1)),
          0.5,
          Duration.ofSeconds(5),
          Duration.ofSeconds(30),
          0.0,
          Duration.ofMillis(100),
          Duration.ofSeconds(1),
          1024);
  private static final DispatchSettings DISPATCH =
      new DispatchSettings(2, 100, 10, Duration.ofHours(1), Duration.ofMillis(100), Duration.ofSeconds(30));

  private final RecordingIndex index = new RecordingIndex(List.of("fresh-template:1", "deleted:1"));
  private final List<String> written = new CopyOnWriteArrayList<>();
  private RefreshDispatcher dispatcher;

  @AfterEach
  void stop() throws InterruptedException {
    if (dispatcher != null) {
      dispatcher.stop(Duration.ofSeconds(1));
    }
  }

  @Test
  void claimedKeyWithoutRegistration_foundOnRecheck_isRefreshed_unknownOneIsDropped() {
    Registration late =
        new Registration(
            "fresh-template:1", "source", Map.of(), Duration.ofMinutes(1), NOW, NOW, RefreshPolicy.HOT, "fresh-template");
    RegistrationLookup lookup =
        new RegistrationLookup() {
          @Override
          public Map<String, Registration> findAll(Collection<String> keys) {
            return Map.of(); // this replica's template catalog is not up to date yet
          }

          @Override
          public Map<String, Registration> recheck(Collection<String> keys) {
            return keys.contains(late.key()) ? Map.of(late.key(), late) : Map.of();
          }
        };
    dispatcher = new RefreshDispatcher(index, index, lookup, refresher(), new RescheduleBuffer(index), DISPATCH,
        RefreshListener.NONE, new LagTracker(), InstantSource.system(), Threads::named);

    dispatcher.start();

    await().atMost(Duration.ofSeconds(10)).until(() -> written.contains("fresh-template:1"));
    assertThat(index.removed).containsExactly("deleted:1");
    assertThat(written).doesNotContain("deleted:1");
  }

  @Test
  void registryUnavailable_keysPutBack_noClaimUntilTheirRetryTime_oneFailureStreak() {
    // The index stamps claimed keys with the system clock: the test's clock starts there.
    AtomicLong now = new AtomicLong(System.currentTimeMillis());
    InstantSource clock = () -> Instant.ofEpochMilli(now.get());
    RegistrationLookup down =
        keys -> {
          throw new io.refresher.failure.RegistryUnavailableException("registry database unavailable", null);
        };
    RecordingIndex putBack = new RecordingIndex(List.of("k:1", "k:2"));
    putBack.redeliver = true;
    dispatcher = new RefreshDispatcher(putBack, putBack, down, refresher(), new RescheduleBuffer(putBack), DISPATCH,
        RefreshListener.NONE, new LagTracker(), clock, Threads::named);

    dispatcher.tick();
    assertThat(putBack.claims).as("claims").isEqualTo(1);
    assertThat(dispatcher.consecutiveTickFailures()).isEqualTo(1);
    // Put back at now + 20 polls (2 s here). A failing registry answers at once while its outage
    // is known: ticks until then neither claim (the keys are not due) nor end the streak.
    long retryAt = putBack.rescheduled.get("k:1");
    assertThat(retryAt).isGreaterThanOrEqualTo(now.get() + 20 * DISPATCH.pollInterval().toMillis());
    now.set(retryAt - 1);
    dispatcher.tick();
    assertThat(putBack.claims).as("claims before the retry time").isEqualTo(1);
    assertThat(dispatcher.consecutiveTickFailures()).as("still failing").isEqualTo(1);

    now.set(retryAt);
    dispatcher.tick();
    assertThat(putBack.claims).as("claims at the retry time").isEqualTo(2);
    assertThat(dispatcher.consecutiveTickFailures()).isEqualTo(2);
  }

  private Refresher refresher() {
    return TestRefreshers.inMemory(SETTINGS, registration -> "value of " + registration.key(), written::add);
  }


  /** Hands out its keys once, as due now; records removals. */
  private static final class RecordingIndex implements DueIndex, ClaimLeases {
    private final List<String> due;
    final List<String> removed = new CopyOnWriteArrayList<>();
    final Map<String, Long> rescheduled = new java.util.concurrent.ConcurrentHashMap<>();
    int claims;
    /** Whether rescheduled keys are handed out again by the next claim (the horizon is not checked). */
    boolean redeliver;

    RecordingIndex(List<String> due) {
      this.due = new ArrayList<>(due);
    }

    @Override
    public synchronized List<DueKey> claim(long horizonMillis, int limit, long leaseUntilMillis) {
      claims++;
      List<DueKey> claimed = new ArrayList<>();
      due.forEach(key -> claimed.add(new DueKey(key, System.currentTimeMillis())));
      due.clear();
      return claimed;
    }

    @Override
    public List<DueKey> claim(long horizonMillis, int limit, double leaseScore) {
      return claim(horizonMillis, limit, (long) leaseScore);
    }

    @Override
    public java.util.Set<String> renew(Map<String, Double> expectedScores, double renewedScore) {
      return java.util.Set.of();
    }

    @Override
    public List<DueKey> claimedWith(double leaseScore) {
      return List.of();
    }

    @Override
    public void schedule(String key, long atMillis) {}

    @Override
    public synchronized void reschedule(Map<String, Long> atMillisByKey) {
      rescheduled.putAll(atMillisByKey);
      if (redeliver) {
        due.addAll(atMillisByKey.keySet());
      }
    }

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
