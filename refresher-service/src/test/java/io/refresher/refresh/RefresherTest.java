package io.refresher.refresh;

import io.refresher.failure.CacheUnavailableException;

import static org.assertj.core.api.Assertions.assertThat;

import io.refresher.refresh.RefreshOutcome.Failed;
import io.refresher.refresh.RefreshOutcome.Refreshed;
import io.refresher.refresh.RefreshOutcome.Skipped;
import io.refresher.registry.RefreshPolicy;
import io.refresher.registry.Registration;
import io.refresher.source.SourceException;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class RefresherTest {

  private static final Instant T0 = Instant.parse("2025-03-01T12:00:00Z");
  private static final long EPOCH = 7;
  private static final Duration TTL = Duration.ofMinutes(1);

  private static final RefreshSettings SETTINGS = TestRefreshers.SETTINGS;

  private static final Registration PRODUCT =
      Registration.of("product:42", "product-by-id", Map.of("id", 42L), TTL, T0, T0, RefreshPolicy.ALWAYS);

  private final FakeClock clock = new FakeClock(T0);
  private final FakeLoader loader = new FakeLoader(clock);
  private final FakeStore store = new FakeStore();
  private final FakeLocks locks = new FakeLocks();
  private final FakeLoad load = new FakeLoad();
  private final RecordingRescheduler rescheduler = new RecordingRescheduler();
  private final RecordingListener listener = new RecordingListener();
  private final Refresher refresher =
      new Refresher(
          loader,
          load,
          store,
          locks,
          () -> EPOCH,
          new RefreshPlanner(SETTINGS, new Random(42)),
          SETTINGS,
          rescheduler,
          listener,
          new AdaptiveTtr(SETTINGS.ttr(), SETTINGS.maxTtrFraction(), SETTINGS.retryBase()),
          new LagTracker(),
          Heat.UNKNOWN,
          clock);

  @AfterEach
  void everyLockTakenIsReleasedExactlyOnce() {
    assertThat(locks.released).as("lock releases").isEqualTo(locks.acquired);
  }

  @Test
  void refresh_sourceSucceeds_writesValueWithFenceAndMeta() {
    loader.value = "{\"id\":42}";
    loader.takes = Duration.ofSeconds(2);

    refresher.refresh(PRODUCT, Trigger.SCHEDULED);

    Instant computedAt = T0.plusSeconds(2);
    assertThat(store.writes)
        .containsExactly(
            new Write(
                "product:42",
                "{\"id\":42}",
                new Fence(EPOCH, locks.lastToken),
                new CacheStore.ValueMeta(computedAt, Duration.ofSeconds(2), computedAt.plus(TTL)),
                TTL.plus(SETTINGS.staleGrace())));
    assertThat(locks.lastKey).isEqualTo("product:42");
    assertThat(locks.lastLease).isEqualTo(SETTINGS.lockLease());
    assertThat(store.releasingLocks)
        .as("the write carries the lock it releases")
        .singleElement()
        .satisfies(lock -> assertThat(lock.token()).isEqualTo(locks.lastToken));
  }

  @Test
  void refresh_sourceSucceeds_reschedulesAtExpiryMinusTtr() {
    loader.value = "v";
    loader.takes = Duration.ofSeconds(2);

    refresher.refresh(PRODUCT, Trigger.SCHEDULED);

    // computed at T0+2s, expires at T0+62s, due 5 s before that
    assertThat(rescheduler.calls).containsExactly(Map.entry("product:42", T0.plusSeconds(57)));
  }

  @Test
  void refresh_startedLate_nextRefreshSpreadEarlierByAtMostTheBacklogSpread() {
    loader.value = "v";
    loader.takes = Duration.ofSeconds(2);
    java.util.Set<Instant> planned = new java.util.HashSet<>();
    for (int i = 0; i < 50; i++) {
      rescheduler.calls.clear();
      refresher.refresh(PRODUCT, Trigger.SCHEDULED, Duration.ofSeconds(3));
      clock.set(T0); // each run computes at T0+2s, due at T0+57s before the spread
      planned.add(rescheduler.calls.get(0).getValue());
    }

    // 5 % of the period from the write (T0+2s) to T0+57s: 2.75 s at most, earlier only
    assertThat(planned).allSatisfy(at -> assertThat(at).isBetween(T0.plusSeconds(57).minusMillis(2750), T0.plusSeconds(57)));
    assertThat(planned).as("spread, not one time").hasSizeGreaterThan(10);
  }

  @Test
  void refresh_startedOnTime_nextRefreshNotSpread() {
    loader.value = "v";
    loader.takes = Duration.ofSeconds(2);

    refresher.refresh(PRODUCT, Trigger.SCHEDULED, Duration.ofMillis(99));

    assertThat(rescheduler.calls).containsExactly(Map.entry("product:42", T0.plusSeconds(57)));
  }

  @Test
  void refresh_sourceSucceeds_returnsRefreshed() {
    loader.value = "v";
    loader.takes = Duration.ofMillis(1500);

    RefreshOutcome outcome = refresher.refresh(PRODUCT, Trigger.SCHEDULED);

    Instant computedAt = T0.plusMillis(1500);
    assertThat(outcome)
        .isEqualTo(
            new Refreshed(
                computedAt,
                Duration.ofMillis(1500),
                computedAt.plus(TTL),
                computedAt.plus(TTL).minusSeconds(5),
                Duration.ofSeconds(5),
                new Fence(EPOCH, locks.lastToken)));
    assertThat(loader.calls).isEqualTo(1);
  }

  @Test
  void refresh_shortTtl_reschedulesWithTtrCappedAtHalfTheTtl() {
    Registration shortLived = Registration.of("ticker", "server-time", Map.of(), Duration.ofSeconds(4), T0, T0, RefreshPolicy.ALWAYS);
    loader.value = "v";

    refresher.refresh(shortLived, Trigger.SCHEDULED);

    assertThat(rescheduler.calls).containsExactly(Map.entry("ticker", T0.plusSeconds(2)));
  }

  @Test
  void refresh_successAfterFailures_isStillRefreshed() {
    loader.value = "v";
    store.writeResult = new CacheStore.WriteResult(CacheStore.WriteStatus.WRITTEN, 3, List.of(2000L));

    RefreshOutcome outcome = refresher.refresh(PRODUCT, Trigger.SCHEDULED);

    assertThat(outcome).isInstanceOf(Refreshed.class);
    assertThat(rescheduler.calls).hasSize(1);
  }

  @Test
  void refresh_loadBoundLeavesNoRoom_skipsThrottledWithoutLockOrLoadAndRetriesSoon() {
    load.room = false;
    loader.value = "v";

    RefreshOutcome outcome = refresher.refresh(PRODUCT, Trigger.SCHEDULED);

    assertThat(outcome).isEqualTo(new Skipped(Skipped.Reason.THROTTLED));
    assertThat(locks.acquired).as("no lock taken while throttled").isZero();
    assertThat(loader.calls).isZero();
    assertThat(store.writes).isEmpty();
    assertThat(rescheduler.calls).singleElement().satisfies(call -> {
      assertThat(call.getKey()).isEqualTo(PRODUCT.key());
      assertThat(call.getValue()).isEqualTo(clock.instant().plus(SETTINGS.retryBase()));
    });
  }

  @Test
  void refresh_admitted_admissionClosedAfterTheWriteAndWaitNotCountedAsComputeTime() {
    load.waitFor = Duration.ofSeconds(3);
    loader.value = "v";
    loader.takes = Duration.ofMillis(40);

    RefreshOutcome outcome = refresher.refresh(PRODUCT, Trigger.SCHEDULED);

    assertThat(outcome).isInstanceOf(Refreshed.class);
    assertThat(((Refreshed) outcome).computeDuration()).isEqualTo(Duration.ofMillis(40));
    assertThat(load.admitted).isEqualTo(1);
    assertThat(load.closed).isEqualTo(1);
    assertThat(load.closedAfterWrites).isEqualTo(1);
  }

  @Test
  void refresh_ratePermitNotGranted_throttledAfterTheLockIsReleasedAndNothingLoaded() {
    load.rate = false;
    loader.value = "v";

    RefreshOutcome outcome = refresher.refresh(PRODUCT, Trigger.SCHEDULED);

    assertThat(outcome).isEqualTo(new Skipped(Skipped.Reason.THROTTLED));
    assertThat(load.rateAwaitedUnderLock).as("rate permit awaited right before the query, under the lock").isEqualTo(1);
    assertThat(loader.calls).isZero();
    assertThat(load.closed).isEqualTo(1);
    assertThat(rescheduler.calls).hasSize(1);
  }

  @Test
  void refresh_sourceFailsWhileAdmitted_admissionStillClosed() {
    loader.failure = new SourceException(SourceException.Kind.TIMEOUT, "timed out");

    refresher.refresh(PRODUCT, Trigger.MANUAL);

    assertThat(load.admitted).isEqualTo(1);
    assertThat(load.closed).isEqualTo(1);
  }

  @Test
  void refresh_loadBoundUnreachable_failsRedisWithoutLockAndPlansRetry() {
    load.failure = new CacheUnavailableException("load bound failed: Redis unavailable", null);

    RefreshOutcome outcome = refresher.refresh(PRODUCT, Trigger.SCHEDULED);

    assertThat(outcome).isInstanceOf(Failed.class);
    assertThat(((Failed) outcome).kind()).isEqualTo("REDIS");
    assertThat(locks.acquired).isZero();
    assertThat(rescheduler.calls).hasSize(1);
  }

  @Test
  void refresh_lockBusy_skipsWithoutLoadingOrRescheduling() {
    locks.busy = true;
    loader.value = "v";

    RefreshOutcome outcome = refresher.refresh(PRODUCT, Trigger.SCHEDULED);

    assertThat(outcome).isInstanceOf(Skipped.class);
    assertThat(((Skipped) outcome).reason()).isEqualTo(Skipped.Reason.LOCKED);
    assertThat(((Skipped) outcome).lockedUntil()).as("when the holder's lock ends, for the dispatcher").isNotNull();
    assertThat(loader.calls).isZero();
    assertThat(store.writes).isEmpty();
    assertThat(store.failures).isEmpty();
    assertThat(rescheduler.calls).isEmpty();
  }

  @Test
  void refresh_sourceThrows_returnsFailedWithKind() {
    loader.failure = new SourceException(SourceException.Kind.TIMEOUT, "source 'product-by-id' timed out after 2000 ms");
    loader.takes = Duration.ofSeconds(2);

    RefreshOutcome outcome = refresher.refresh(PRODUCT, Trigger.SCHEDULED);

    assertThat(outcome).isInstanceOf(Failed.class);
    Failed failed = (Failed) outcome;
    assertThat(failed.kind()).isEqualTo("TIMEOUT");
    assertThat(failed.error()).isEqualTo("source 'product-by-id' timed out after 2000 ms");
    assertThat(failed.computeDuration()).isEqualTo(Duration.ofSeconds(2));
    assertThat(failed.consecutiveFailures()).isEqualTo(1);
    assertThat(store.writes).isEmpty();
  }

  @Test
  void refresh_sourceThrows_recordsFailureWithFence() {
    loader.failure = new SourceException(SourceException.Kind.NO_VALUE, "no row");
    loader.takes = Duration.ofSeconds(1);

    refresher.refresh(PRODUCT, Trigger.SCHEDULED);

    assertThat(store.failures)
        .containsExactly(
            new RecordedFailure(
                "product:42",
                new Fence(EPOCH, locks.lastToken),
                "NO_VALUE",
                "no row",
                T0.plusSeconds(1),
                TTL.plus(SETTINGS.staleGrace())));
  }

  @Test
  void refresh_sourceThrowsWithDetail_recordsTheMessageOnly() {
    loader.failure =
        new SourceException(
            SourceException.Kind.ERROR, "source 'product-by-id' failed: SQLSTATE 23505: duplicate key", "Detail: Key (email)=(ann@example.com)", null, null);

    RefreshOutcome outcome = refresher.refresh(PRODUCT, Trigger.SCHEDULED);

    assertThat(((Failed) outcome).error()).isEqualTo("source 'product-by-id' failed: SQLSTATE 23505: duplicate key");
    assertThat(store.failures.get(0).error()).isEqualTo("source 'product-by-id' failed: SQLSTATE 23505: duplicate key");
  }

  @Test
  void refresh_sourceThrowsALongMessage_recordsItCut() {
    loader.failure = new SourceException(SourceException.Kind.ERROR, "source 'product-by-id' failed: " + "m".repeat(2_000));

    RefreshOutcome outcome = refresher.refresh(PRODUCT, Trigger.SCHEDULED);

    assertThat(store.failures.get(0).error()).hasSize(Refresher.MAX_ERROR_CHARS + 3).endsWith("mmm...");
    assertThat(((Failed) outcome).error()).isEqualTo(store.failures.get(0).error());
  }

  @Test
  void refresh_sourceThrowsFirstTime_reschedulesRetryWithinFirstBackoff() {
    loader.failure = new SourceException(SourceException.Kind.ERROR, "connection refused");
    loader.takes = Duration.ofSeconds(1);

    Failed failed = (Failed) refresher.refresh(PRODUCT, Trigger.SCHEDULED);

    Instant failedAt = T0.plusSeconds(1);
    assertThat(failed.retryAt()).isBetween(failedAt.plusMillis(250), failedAt.plusMillis(500));
    assertThat(rescheduler.calls).containsExactly(Map.entry("product:42", failed.retryAt()));
  }

  @Test
  void refresh_sourceThrowsFourthTimeInARow_backsOffExponentially() {
    loader.failure = new SourceException(SourceException.Kind.ERROR, "connection refused");
    store.streak = 3;

    Failed failed = (Failed) refresher.refresh(PRODUCT, Trigger.SCHEDULED);

    // 500 ms * 2^3 = 4 s, equal jitter: between 2 s and 4 s
    assertThat(failed.consecutiveFailures()).isEqualTo(4);
    assertThat(failed.retryAt()).isBetween(T0.plusSeconds(2), T0.plusSeconds(4));
    assertThat(rescheduler.calls).containsExactly(Map.entry("product:42", failed.retryAt()));
  }

  @Test
  void refresh_sourceThrows_releasesLock() {
    loader.failure = new SourceException(SourceException.Kind.ERROR, "boom");

    refresher.refresh(PRODUCT, Trigger.SCHEDULED);

    assertThat(locks.acquired).isEqualTo(1);
    assertThat(locks.released).isEqualTo(1);
  }

  @Test
  void refresh_valueOverMaxBytes_failsValueTooLargeAndWritesNothing() {
    // 6 chars but 18 bytes in UTF-8: the limit (16) counts bytes
    loader.value = "€€€€€€";

    RefreshOutcome outcome = refresher.refresh(PRODUCT, Trigger.SCHEDULED);

    assertThat(outcome).isInstanceOf(Failed.class);
    assertThat(((Failed) outcome).kind()).isEqualTo("VALUE_TOO_LARGE");
    assertThat(((Failed) outcome).error()).contains("18 bytes").contains("16 bytes");
    assertThat(store.writes).isEmpty();
    assertThat(store.failures).extracting(RecordedFailure::kind).containsExactly("VALUE_TOO_LARGE");
    assertThat(rescheduler.calls).hasSize(1);
  }

  @Test
  void refresh_valueExactlyMaxBytes_isWritten() {
    loader.value = "x".repeat(16);

    RefreshOutcome outcome = refresher.refresh(PRODUCT, Trigger.SCHEDULED);

    assertThat(outcome).isInstanceOf(Refreshed.class);
    assertThat(store.writes).extracting(Write::value).containsExactly("x".repeat(16));
  }

  @Test
  void refresh_storeReportsFencedOut_skipsAndDoesNotReschedule() {
    loader.value = "v";
    store.writeResult = new CacheStore.WriteResult(CacheStore.WriteStatus.NEWER_STORED, 0, List.of());

    RefreshOutcome outcome = refresher.refresh(PRODUCT, Trigger.SCHEDULED);

    assertThat(outcome).isEqualTo(new Skipped(Skipped.Reason.FENCED_OUT));
    assertThat(store.writes).hasSize(1);
    assertThat(rescheduler.calls).isEmpty();
  }

  @Test
  void refresh_tokenCounterRepaired_retriesSoon() {
    loader.value = "v";
    store.writeResult = new CacheStore.WriteResult(CacheStore.WriteStatus.COUNTER_REPAIRED, 0, List.of());

    RefreshOutcome outcome = refresher.refresh(PRODUCT, Trigger.SCHEDULED);

    assertThat(outcome).isEqualTo(new Skipped(Skipped.Reason.COUNTER_REPAIRED));
    assertThat(rescheduler.calls)
        .as("nobody else wrote: without a reschedule the key would wait out its claim")
        .containsExactly(Map.entry(PRODUCT.key(), clock.instant().plus(SETTINGS.retryBase())));
  }

  @Test
  void refresh_registrationDeletedMeanwhile_dropsTheValueAndDoesNotReschedule() {
    loader.value = "v";
    store.writeResult = new CacheStore.WriteResult(CacheStore.WriteStatus.REGISTRATION_GONE, 0, List.of());

    RefreshOutcome outcome = refresher.refresh(PRODUCT, Trigger.SCHEDULED);

    assertThat(outcome).isEqualTo(new Skipped(Skipped.Reason.REGISTRATION_GONE));
    assertThat(rescheduler.calls).isEmpty();
  }

  /**
   * The replacement's own refresh may have been skipped while this one held the lock: without a
   * reschedule now, the replaced registration's value stayed until the key's next cycle (a TTL).
   */
  @Test
  void refresh_registrationReplacedMeanwhile_dropsTheValueAndMakesTheKeyDueNow() {
    loader.value = "v";
    store.writeResult = new CacheStore.WriteResult(CacheStore.WriteStatus.REGISTRATION_REPLACED, 0, List.of());

    RefreshOutcome outcome = refresher.refresh(PRODUCT, Trigger.MANUAL);

    assertThat(outcome).isEqualTo(new Skipped(Skipped.Reason.REGISTRATION_GONE));
    assertThat(rescheduler.calls).containsExactly(Map.entry(PRODUCT.key(), clock.instant()));
  }

  @Test
  void refresh_writesCarryTheRegistrationsGeneration() {
    loader.value = "v";

    refresher.refresh(PRODUCT.withGeneration(17), Trigger.SCHEDULED);

    assertThat(store.generations).containsExactly(17L);
  }

  @Test
  void refresh_failureRecordRefusedByNewerFence_skipsAndDoesNotReschedule() {
    loader.failure = new SourceException(SourceException.Kind.ERROR, "boom");
    store.refuseFailureRecord = true;

    RefreshOutcome outcome = refresher.refresh(PRODUCT, Trigger.SCHEDULED);

    assertThat(outcome).isEqualTo(new Skipped(Skipped.Reason.FENCED_OUT));
    assertThat(rescheduler.calls).isEmpty();
  }

  @Test
  void refresh_loaderThrowsRuntimeException_failsAsErrorAndReleasesLock() {
    loader.crash = new IllegalStateException("bug in loader");

    RefreshOutcome outcome = refresher.refresh(PRODUCT, Trigger.SCHEDULED);

    assertThat(outcome).isInstanceOf(Failed.class);
    assertThat(((Failed) outcome).kind()).isEqualTo("ERROR");
    assertThat(((Failed) outcome).error())
        .as("its message could quote anything: the log's only")
        .isEqualTo("unexpected IllegalStateException (see the service's log)");
    assertThat(store.failures.get(0).error()).doesNotContain("bug in loader");
    assertThat(locks.released).isEqualTo(1);
    assertThat(rescheduler.calls).hasSize(1);
  }

  @Test
  void refresh_redisDownOnLock_failsRedisAndPlansRetry() {
    locks.failure = new CacheUnavailableException("Connection refused: localhost/127.0.0.1:6379", null);

    RefreshOutcome outcome = refresher.refresh(PRODUCT, Trigger.SCHEDULED);

    assertThat(outcome).isInstanceOf(Failed.class);
    Failed failed = (Failed) outcome;
    assertThat(failed.kind()).isEqualTo("REDIS");
    assertThat(failed.error()).isEqualTo("Connection refused: localhost/127.0.0.1:6379");
    assertThat(failed.consecutiveFailures()).isEqualTo(1);
    assertThat(failed.computeDuration()).isEqualTo(Duration.ZERO);
    assertThat(failed.retryAt()).isBetween(T0.plusMillis(250), T0.plusMillis(500));
    assertThat(rescheduler.calls).containsExactly(Map.entry("product:42", failed.retryAt()));
    assertThat(loader.calls).isZero();
  }

  @Test
  void refresh_redisDownOnWrite_failsRedisAndReleasesLock() {
    loader.value = "v";
    store.writeFailure = new CacheUnavailableException("timeout", null);

    RefreshOutcome outcome = refresher.refresh(PRODUCT, Trigger.SCHEDULED);

    assertThat(outcome).isInstanceOf(Failed.class);
    assertThat(((Failed) outcome).kind()).isEqualTo("REDIS");
    assertThat(store.failures).extracting(RecordedFailure::kind).containsExactly("REDIS");
    assertThat(locks.released).isEqualTo(1);
    assertThat(rescheduler.calls).hasSize(1);
  }

  @Test
  void refresh_redisDownWhenRecordingFailure_stillPlansRetry() {
    loader.failure = new SourceException(SourceException.Kind.ERROR, "boom");
    store.recordFailureFailure = new CacheUnavailableException("redis down", null);

    RefreshOutcome outcome = refresher.refresh(PRODUCT, Trigger.SCHEDULED);

    assertThat(outcome).isInstanceOf(Failed.class);
    assertThat(((Failed) outcome).consecutiveFailures()).isEqualTo(1);
    assertThat(rescheduler.calls).hasSize(1);
    assertThat(locks.released).isEqualTo(1);
  }

  @Test
  void refresh_epochChanges_nextWriteCarriesNewEpochAndNewToken() {
    long[] epoch = {3};
    Refresher refresher =
        new Refresher(
            loader, load, store, locks, () -> epoch[0], new RefreshPlanner(SETTINGS, new Random(1)), SETTINGS,
            rescheduler, listener,
            new AdaptiveTtr(SETTINGS.ttr(), SETTINGS.maxTtrFraction(), SETTINGS.retryBase()),
            new LagTracker(), Heat.UNKNOWN, clock);
    loader.value = "v";

    refresher.refresh(PRODUCT, Trigger.SCHEDULED);
    long firstToken = locks.lastToken;
    epoch[0] = 4;
    refresher.refresh(PRODUCT, Trigger.SCHEDULED);

    assertThat(store.writes)
        .extracting(Write::fence)
        .containsExactly(new Fence(3, firstToken), new Fence(4, locks.lastToken));
    assertThat(locks.lastToken).isGreaterThan(firstToken);
  }

  @Test
  void refresh_everyOutcome_isReportedToListenerWithTrigger() {
    List<RefreshOutcome> returned = new ArrayList<>();
    loader.value = "v";
    returned.add(refresher.refresh(PRODUCT, Trigger.REGISTERED));
    locks.busy = true;
    returned.add(refresher.refresh(PRODUCT, Trigger.SCHEDULED));
    locks.busy = false;
    loader.failure = new SourceException(SourceException.Kind.ERROR, "boom");
    returned.add(refresher.refresh(PRODUCT, Trigger.MANUAL));
    loader.failure = null;
    store.writeResult = new CacheStore.WriteResult(CacheStore.WriteStatus.NEWER_STORED, 0, List.of());
    returned.add(refresher.refresh(PRODUCT, Trigger.SCHEDULED));
    locks.failure = new CacheUnavailableException("down", null);
    returned.add(refresher.refresh(PRODUCT, Trigger.MANUAL));

    assertThat(returned)
        .extracting(RefreshOutcome::name)
        .containsExactly("refreshed", "skipped", "failed", "skipped", "failed");
    assertThat(listener.events)
        .containsExactly(
            new Event(PRODUCT, Trigger.REGISTERED, returned.get(0)),
            new Event(PRODUCT, Trigger.SCHEDULED, returned.get(1)),
            new Event(PRODUCT, Trigger.MANUAL, returned.get(2)),
            new Event(PRODUCT, Trigger.SCHEDULED, returned.get(3)),
            new Event(PRODUCT, Trigger.MANUAL, returned.get(4)));
  }

  @Test
  void refresh_loaderRuntimeException_isReportedToListener() {
    loader.crash = new IllegalStateException("bug");

    RefreshOutcome outcome = refresher.refresh(PRODUCT, Trigger.SCHEDULED);

    assertThat(listener.events).containsExactly(new Event(PRODUCT, Trigger.SCHEDULED, outcome));
  }

  @Test
  void revalidation_unchanged_extendsTtlWithoutComputing_andReschedulesFromTheExtension() {
    loader.version = "v1";
    store.storedValidator = "v1";
    loader.value = "never computed";

    RefreshOutcome outcome = refresher.refresh(PRODUCT, Trigger.SCHEDULED);

    assertThat(loader.calls).as("source query runs").isZero();
    assertThat(loader.validatorsSeen).containsExactly("v1");
    assertThat(store.writes).isEmpty();
    Instant checkedAt = T0.plusMillis(3);
    assertThat(store.extensions).containsExactly(checkedAt.plus(TTL));
    assertThat(outcome)
        .isEqualTo(
            new RefreshOutcome.Revalidated(
                checkedAt,
                Duration.ofMillis(3),
                checkedAt.plus(TTL),
                checkedAt.plus(TTL).minusSeconds(5),
                Duration.ofSeconds(5),
                new Fence(EPOCH, locks.lastToken)));
    assertThat(rescheduler.calls).containsExactly(Map.entry("product:42", checkedAt.plus(TTL).minusSeconds(5)));
    assertThat(store.releasingLocks).as("the extension releases the lock").hasSize(1);
  }

  @Test
  void revalidation_changed_computesAndStoresTheNewValidatorWithTheValue() {
    loader.version = "v2";
    store.storedValidator = "v1";
    loader.value = "new";

    RefreshOutcome outcome = refresher.refresh(PRODUCT, Trigger.SCHEDULED);

    assertThat(outcome).isInstanceOf(Refreshed.class);
    assertThat(loader.calls).isEqualTo(1);
    assertThat(store.writes).singleElement().satisfies(write -> {
      assertThat(write.value()).isEqualTo("new");
      assertThat(write.meta().validator()).isEqualTo("v2");
    });
    assertThat(store.extensions).isEmpty();
  }

  @Test
  void revalidation_valueGoneSinceTheValidatorWasRead_computesUnderTheSameLock() {
    loader.version = "v1";
    store.storedValidator = "v1";
    store.extendResult = new CacheStore.WriteResult(CacheStore.WriteStatus.VALUE_GONE, 0, List.of());
    loader.value = "recomputed";

    RefreshOutcome outcome = refresher.refresh(PRODUCT, Trigger.SCHEDULED);

    assertThat(outcome).isInstanceOf(Refreshed.class);
    assertThat(loader.validatorsSeen).as("asked again without a validator").containsExactly("v1", null);
    assertThat(store.writes).singleElement().satisfies(write -> assertThat(write.value()).isEqualTo("recomputed"));
    assertThat(locks.acquired).isEqualTo(1);
  }

  @Test
  void revalidation_refusedByANewerFence_isSkippedLikeAWrite() {
    loader.version = "v1";
    store.storedValidator = "v1";
    store.extendResult = new CacheStore.WriteResult(CacheStore.WriteStatus.NEWER_STORED, 0, List.of());

    RefreshOutcome outcome = refresher.refresh(PRODUCT, Trigger.SCHEDULED);

    assertThat(outcome).isEqualTo(new Skipped(Skipped.Reason.FENCED_OUT));
    assertThat(rescheduler.calls).as("the newer value's writer rescheduled it").isEmpty();
  }

  @Test
  void sourceWithoutRevalidation_neverReadsAValidator() {
    store.storedValidator = "would be wrong to use";
    loader.value = "v";

    refresher.refresh(PRODUCT, Trigger.SCHEDULED);

    assertThat(loader.validatorsSeen).containsExactly((String) null);
  }

  @Test
  void retryAfter_longerThanTheBackoff_isTheEarliestRetry() {
    loader.failure =
        new SourceException(SourceException.Kind.HTTP_STATUS, "status 429", null, Duration.ofSeconds(3));

    RefreshOutcome outcome = refresher.refresh(PRODUCT, Trigger.SCHEDULED);

    assertThat(outcome).isInstanceOfSatisfying(Failed.class, failed -> assertThat(failed.retryAt()).isEqualTo(T0.plusSeconds(3)));
    assertThat(rescheduler.calls).containsExactly(Map.entry("product:42", T0.plusSeconds(3)));
  }

  @Test
  void retryAfter_shorterThanTheBackoff_leavesTheBackoff() {
    loader.failure = new SourceException(SourceException.Kind.HTTP_STATUS, "status 503", null, Duration.ofMillis(1));

    RefreshOutcome outcome = refresher.refresh(PRODUCT, Trigger.SCHEDULED);

    // retry base 500 ms with equal jitter: between 250 and 500 ms
    assertThat(((Failed) outcome).retryAt()).isBetween(T0.plusMillis(250), T0.plusMillis(500));
  }

  @Test
  void retryAfter_ofDays_isCappedAtAnHour() {
    loader.failure = new SourceException(SourceException.Kind.HTTP_STATUS, "status 503", null, Duration.ofDays(3));

    RefreshOutcome outcome = refresher.refresh(PRODUCT, Trigger.SCHEDULED);

    assertThat(((Failed) outcome).retryAt()).isEqualTo(T0.plus(Refresher.MAX_RETRY_AFTER));
  }

  record Write(String key, String value, Fence fence, CacheStore.ValueMeta meta, Duration physicalTtl) {}

  record RecordedFailure(String key, Fence fence, String kind, String error, Instant at, Duration metaTtlIfNew) {}

  record Event(Registration registration, Trigger trigger, RefreshOutcome outcome) {}

  /** Admits or refuses; "waits" {@link #waitFor} of fake time; counts admissions and closes. */
  private final class FakeLoad implements SourceLoad {
    boolean room = true;
    boolean rate = true;
    int rateAwaitedUnderLock;
    Duration waitFor = Duration.ZERO;
    CacheUnavailableException failure;
    int admitted;
    int closed;
    int closedAfterWrites;

    @Override
    public Optional<Admission> admit(Registration registration) {
      if (failure != null) {
        throw failure;
      }
      clock.advance(waitFor);
      if (!room) {
        return Optional.empty();
      }
      admitted++;
      return Optional.of(
          new Admission() {
            @Override
            public boolean awaitRate() {
              rateAwaitedUnderLock += locks.acquired - locks.released;
              return rate;
            }

            @Override
            public void close() {
              closed++;
              closedAfterWrites += store.writes.size();
            }
          });
    }
  }

  private static final class FakeClock implements InstantSource {
    private Instant now;

    FakeClock(Instant start) {
      this.now = start;
    }

    @Override
    public Instant instant() {
      return now;
    }

    void advance(Duration duration) {
      now = now.plus(duration);
    }

    void set(Instant at) {
      now = at;
    }
  }

  /** Returns {@link #value}, or throws; "takes" {@link #takes} of fake time. */
  private static final class FakeLoader implements ValueLoader {
    private final FakeClock clock;
    String value;
    SourceException failure;
    RuntimeException crash;
    Duration takes = Duration.ZERO;
    int calls;
    /** With a version: the source revalidates, and a stored validator equal to it means unchanged. */
    String version;
    final List<String> validatorsSeen = new ArrayList<>();
    int checks;

    FakeLoader(FakeClock clock) {
      this.clock = clock;
    }

    @Override
    public boolean revalidates(Registration registration) {
      return version != null;
    }

    @Override
    public Loaded loadIfChanged(Registration registration, String validator) throws SourceException {
      validatorsSeen.add(validator);
      if (version != null && version.equals(validator)) {
        checks++;
        clock.advance(Duration.ofMillis(3));
        return new Loaded.Unchanged();
      }
      return new Loaded.Value(load(registration), version);
    }

    @Override
    public String load(Registration registration) throws SourceException {
      calls++;
      clock.advance(takes);
      if (failure != null) {
        throw failure;
      }
      if (crash != null) {
        throw crash;
      }
      return value;
    }
  }

  /** Records writes and failures; a failure streak is counted like the real metadata does. */
  private static final class FakeStore implements CacheStore {
    final List<Write> writes = new ArrayList<>();
    final List<Long> generations = new ArrayList<>();
    final List<KeyLocks.HeldLock> releasingLocks = new ArrayList<>();
    final List<RecordedFailure> failures = new ArrayList<>();
    WriteResult writeResult = new WriteResult(WriteStatus.WRITTEN, 0, List.of(2000L));
    CacheUnavailableException writeFailure;
    CacheUnavailableException recordFailureFailure;
    boolean refuseFailureRecord;
    int streak;

    @Override
    public WriteResult write(
        String key,
        String value,
        Fence fence,
        long generation,
        ValueMeta meta,
        Duration physicalTtl,
        int history,
        KeyLocks.HeldLock lock) {
      writes.add(new Write(key, value, fence, meta, physicalTtl));
      releasingLocks.add(lock);
      generations.add(generation);
      if (writeFailure != null) {
        throw writeFailure;
      }
      if (writeResult.written()) {
        streak = 0;
      }
      return writeResult;
    }

    @Override
    public int recordFailure(String key, Fence fence, String kind, String error, Instant at, Duration metaTtlIfNew) {
      if (recordFailureFailure != null) {
        throw recordFailureFailure;
      }
      failures.add(new RecordedFailure(key, fence, kind, error, at, metaTtlIfNew));
      if (refuseFailureRecord) {
        return 0;
      }
      return ++streak;
    }

    @Override
    public Optional<Served> served(String key) {
      return Optional.empty();
    }

    @Override
    public Optional<KeyState> state(String key) {
      return Optional.empty();
    }

    @Override
    public void retire(String key, long generation, boolean evict, Duration tombstone) {
      throw new UnsupportedOperationException("not used by the refresher");
    }

    @Override
    public void supersede(String key, long generation, Duration tombstone) {
      throw new UnsupportedOperationException("not used by the refresher");
    }

    /** What {@link #validator} answers. */
    String storedValidator;
    /** What {@link #extend} answers. */
    WriteResult extendResult = new WriteResult(WriteStatus.WRITTEN, 0, List.of(2000L));
    final List<Instant> extensions = new ArrayList<>();

    @Override
    public WriteResult extend(
        String key, Fence fence, long generation, Instant revalidatedAt, Instant expiresAt, Duration physicalTtl, KeyLocks.HeldLock lock) {
      extensions.add(expiresAt);
      if (extendResult.status() != WriteStatus.VALUE_GONE) {
        releasingLocks.add(lock);
      }
      return extendResult;
    }

    @Override
    public Optional<String> validator(String key) {
      return Optional.ofNullable(storedValidator);
    }

    @Override
    public void evictValue(String key) {
      throw new UnsupportedOperationException("not used by the refresher");
    }
  }

  /** Hands out growing tokens; counts acquisitions and releases. */
  private static final class FakeLocks implements KeyLocks {
    boolean busy;
    CacheUnavailableException failure;
    long lastToken = 100;
    String lastKey;
    Duration lastLease;
    int acquired;
    int released;

    @Override
    public Optional<HeldLock> tryAcquire(String key, Duration lease) {
      if (failure != null) {
        throw failure;
      }
      if (busy) {
        return Optional.empty();
      }
      lastKey = key;
      lastLease = lease;
      acquired++;
      long token = ++lastToken;
      return Optional.of(
          new HeldLock() {
            @Override
            public long token() {
              return token;
            }

            @Override
            public void release() {
              released++;
            }
          });
    }
  }

  private static final class RecordingRescheduler implements Rescheduler {
    final List<Map.Entry<String, Instant>> calls = new ArrayList<>();

    @Override
    public void reschedule(String key, Instant at) {
      calls.add(Map.entry(key, at));
    }
  }

  private static final class RecordingListener implements RefreshListener {
    final List<Event> events = new ArrayList<>();

    @Override
    public void onOutcome(Registration registration, Trigger trigger, RefreshOutcome outcome) {
      events.add(new Event(registration, trigger, outcome));
    }

    @Override
    public void onLag(Duration lag) {}
  }

  @org.junit.jupiter.params.ParameterizedTest
  @org.junit.jupiter.params.provider.ValueSource(strings = {"", "ascii", "é", "€uro", "😀 emoji", "mixed é € 😀 text", "\uD800 lone"})
  void utf8Length_anyText_equalsEncodedLength(String text) {
    assertThat(Refresher.utf8Length(text))
        .isEqualTo(text.getBytes(java.nio.charset.StandardCharsets.UTF_8).length);
  }
}
