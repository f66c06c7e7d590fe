package io.refresher.refresh;

import io.refresher.failure.CacheUnavailableException;

import io.refresher.refresh.RefreshOutcome.Failed;
import io.refresher.refresh.RefreshOutcome.Refreshed;
import io.refresher.refresh.RefreshOutcome.Revalidated;
import io.refresher.refresh.RefreshOutcome.Skipped;
import io.refresher.registry.Registration;
import io.refresher.source.SourceException;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

/**
 * The one refresh path: scheduled refreshes, registrations and manual "refresh now" all come here.
 *
 * <ol>
 *   <li>Wait for room under the source's datasource load bound ({@link SourceLoad}).
 *   <li>Take the key's lock without waiting; if another refresher holds it, skip (it will write
 *       and reschedule).
 *   <li>Run the source; one that can revalidate is first given the validator stored with the
 *       served value, and may answer that the value still holds ({@link Loaded.Unchanged}).
 *   <li>Write value and metadata in one atomic script carrying the fence (epoch, lock token); a
 *       write older than the stored one is refused. An unchanged value is extended by the same
 *       script instead (its TTL, expiry and fence move; the value is not rewritten).
 *   <li>Release the lock (owner-checked, not awaited) and hand the next due time to the
 *       rescheduler.
 * </ol>
 *
 * <p>Failure semantics: a failing or slow source, or a Redis error, never deletes or overwrites the
 * served value. The failure is recorded on the key's metadata, logged at WARN on the first failure
 * of a streak (DEBUG after that, INFO on recovery), counted, and a retry is planned with
 * exponential backoff. Nothing is thrown to the caller. The key records the source's message,
 * bounded; what the source itself said ({@link SourceException#detail()}: a database's Detail and
 * Where lines, an error body), which can quote rows, is in the log lines only.
 */
public final class Refresher {

  private static final Logger LOG = LoggerFactory.getLogger(Refresher.class);

  /** The longest {@code Retry-After} honoured. */
  static final Duration MAX_RETRY_AFTER = Duration.ofHours(1);

  /**
   * The longest error recorded on a key (its metadata, {@code GET /v1/keys/{key}}, a refresh's
   * answer); the log has it whole. Messages name the source and the request, which are short.
   */
  static final int MAX_ERROR_CHARS = 500;

  private final ValueLoader loader;
  private final SourceLoad load;
  private final CacheStore store;
  private final KeyLocks locks;
  private final EpochSource epochs;
  private final RefreshPlanner planner;
  private final RefreshSettings settings;
  private final Rescheduler rescheduler;
  private final RefreshListener listener;
  private final AdaptiveTtr ttrs;
  private final LagTracker lag;
  private final Heat heat;
  private final InstantSource clock;
  private final RefreshTracing tracing;

  /** A scheduled refresh that starts at least this late is taken for part of a backlog. */
  static final Duration LATE_START = Duration.ofMillis(100);

  /**
   * How late the refresh running on this thread started (the dispatcher says; absent for others):
   * read where its next refresh is planned, which is several calls down.
   */
  private static final ThreadLocal<Duration> STARTED_LATE = new ThreadLocal<>();

  /** A refresher that traces nothing. */
  public Refresher(
      ValueLoader loader,
      SourceLoad load,
      CacheStore store,
      KeyLocks locks,
      EpochSource epochs,
      RefreshPlanner planner,
      RefreshSettings settings,
      Rescheduler rescheduler,
      RefreshListener listener,
      AdaptiveTtr ttrs,
      LagTracker lag,
      Heat heat,
      InstantSource clock) {
    this(loader, load, store, locks, epochs, planner, settings, rescheduler, listener, ttrs, lag, heat, clock, RefreshTracing.NONE);
  }

  /** @param tracing where each refresh, its source's run and its Redis write are reported as spans */
  public Refresher(
      ValueLoader loader,
      SourceLoad load,
      CacheStore store,
      KeyLocks locks,
      EpochSource epochs,
      RefreshPlanner planner,
      RefreshSettings settings,
      Rescheduler rescheduler,
      RefreshListener listener,
      AdaptiveTtr ttrs,
      LagTracker lag,
      Heat heat,
      InstantSource clock,
      RefreshTracing tracing) {
    this.tracing = tracing;
    this.loader = loader;
    this.load = load;
    this.store = store;
    this.locks = locks;
    this.epochs = epochs;
    this.planner = planner;
    this.settings = settings;
    this.rescheduler = rescheduler;
    this.listener = listener;
    this.ttrs = ttrs;
    this.lag = lag;
    this.heat = heat;
    this.clock = clock;
  }

  /** See {@link KeyLocks#releaseAbandoned()}. */
  public void releaseAbandonedLocks() {
    locks.releaseAbandoned();
  }

  /**
   * A scheduled refresh that started {@code late}: after a start {@link #LATE_START} late or more,
   * its key's next refresh is spread ({@link RefreshSettings#backlogSpread()}).
   */
  public RefreshOutcome refresh(Registration registration, Trigger trigger, Duration late) {
    STARTED_LATE.set(late);
    try {
      return refresh(registration, trigger);
    } finally {
      STARTED_LATE.remove();
    }
  }

  /** As {@link #refreshBatch(List, Trigger)}, for keys whose scheduled start was {@code late}. */
  public Map<String, RefreshOutcome> refreshBatch(List<Registration> registrations, Trigger trigger, Duration late) {
    STARTED_LATE.set(late);
    try {
      return refreshBatch(registrations, trigger);
    } finally {
      STARTED_LATE.remove();
    }
  }

  public RefreshOutcome refresh(Registration registration, Trigger trigger) {
    // Every line this refresh logs, here and in the adapters it calls on this thread, names its key
    // and source in the logging context (fields of the JSON log layout).
    try (MDC.MDCCloseable key = MDC.putCloseable(LOG_KEY, registration.key());
        MDC.MDCCloseable source = MDC.putCloseable(LOG_SOURCE, registration.source());
        RefreshTracing.Step span = tracing.refresh(registration, trigger)) {
      RefreshOutcome outcome = refreshOnce(registration, trigger);
      span.outcome(outcome.name());
      if (outcome instanceof RefreshOutcome.Failed failed) {
        span.failed(failed.kind(), failed.error());
      }
      listener.onOutcome(registration, trigger, outcome);
      return outcome;
    }
  }

  /** The registration's source's batch form, if it has one (its keys may be refreshed together). */
  public Optional<io.refresher.source.BatchForm> batchForm(Registration registration) {
    return loader.batchForm(registration);
  }

  /**
   * Refreshes keys of one source with a batch form together: one admission to the datasource's
   * load bound and one query for all of them (a batch is one query), while each key keeps its own
   * lock, fence, write, failure record and next refresh, exactly as {@link #refresh} would. A key
   * whose lock another refresh holds is skipped; a key without a row, or whose row is bad, fails
   * alone; a query that fails fails every key that was locked for it. Keys of another source (a
   * registration replaced meanwhile) are refreshed one by one.
   *
   * <p>Traced as one refresh span (named by its first key) with the batch query as its source span
   * and a write span per key.
   *
   * @return each key's outcome, in the order given
   */
  public Map<String, RefreshOutcome> refreshBatch(List<Registration> registrations, Trigger trigger) {
    Map<String, RefreshOutcome> outcomes = new LinkedHashMap<>();
    if (registrations.isEmpty()) {
      return outcomes;
    }
    Registration first = registrations.get(0);
    List<Registration> together = new ArrayList<>();
    for (Registration registration : registrations) {
      if (registration.source().equals(first.source()) && loader.batchForm(registration).isPresent()) {
        together.add(registration);
      } else {
        outcomes.put(registration.key(), refresh(registration, trigger));
      }
    }
    if (together.size() == 1) {
      outcomes.put(first.key(), refresh(together.get(0), trigger));
    } else if (!together.isEmpty()) {
      Map<String, RefreshOutcome> batched;
      try (MDC.MDCCloseable source = MDC.putCloseable(LOG_SOURCE, first.source());
          RefreshTracing.Step span = tracing.refresh(together.get(0), trigger)) {
        batched = refreshTogether(together);
        span.outcome("batch of " + together.size());
      }
      for (Registration registration : together) {
        RefreshOutcome outcome = batched.get(registration.key());
        listener.onOutcome(registration, trigger, outcome);
        outcomes.put(registration.key(), outcome);
      }
    }
    Map<String, RefreshOutcome> ordered = new LinkedHashMap<>();
    for (Registration registration : registrations) {
      ordered.put(registration.key(), outcomes.get(registration.key()));
    }
    return ordered;
  }

  private Map<String, RefreshOutcome> refreshTogether(List<Registration> registrations) {
    Map<String, RefreshOutcome> outcomes = new HashMap<>();
    Optional<SourceLoad.Admission> admission;
    try {
      admission = load.admit(registrations.get(0));
    } catch (CacheUnavailableException e) {
      registrations.forEach(registration -> outcomes.put(registration.key(), failedWithoutLock(registration, e)));
      return outcomes;
    }
    if (admission.isEmpty()) {
      registrations.forEach(registration -> outcomes.put(registration.key(), throttled(registration)));
      return outcomes;
    }
    try (SourceLoad.Admission admitted = admission.get()) {
      Map<Registration, KeyLocks.HeldLock> held = new LinkedHashMap<>();
      try {
        // the keys' locks in one script call (a batch limit's worth per call)
        Map<String, KeyLocks.Attempt> attempts =
            locks.tryAcquireAll(registrations.stream().map(Registration::key).toList(), settings.lockLease());
        for (Registration registration : registrations) {
          KeyLocks.Attempt attempt = attempts.get(registration.key());
          if (attempt.failure() != null) {
            outcomes.put(registration.key(), failedWithoutLock(registration, attempt.failure()));
          } else if (attempt.lock().isPresent()) {
            held.put(registration, attempt.lock().get());
          } else {
            LOG.debug("refresh of key '{}' skipped: another refresh holds its lock", registration.key());
            outcomes.put(registration.key(), new Skipped(Skipped.Reason.LOCKED, lockedUntil(registration.key())));
          }
        }
        if (held.isEmpty()) {
          return outcomes;
        }
        try {
          if (!admitted.awaitRate()) {
            held.keySet().forEach(registration -> outcomes.put(registration.key(), throttled(registration)));
            return outcomes;
          }
        } catch (CacheUnavailableException e) {
          held.keySet().forEach(registration -> outcomes.put(registration.key(), failedWithoutLock(registration, e)));
          return outcomes;
        }
        computeAndWrite(held, outcomes);
        return outcomes;
      } finally {
        held.values().forEach(KeyLocks.HeldLock::release);
      }
    }
  }

  /** The batch's one query, then each locked key's write (or failure) under its own fence. */
  private void computeAndWrite(Map<Registration, KeyLocks.HeldLock> held, Map<String, RefreshOutcome> outcomes) {
    Instant started = clock.instant();
    long epoch = epochs.currentEpoch();
    List<Registration> locked = new ArrayList<>(held.keySet());
    Map<String, BatchItem> items;
    listener.onBatch(locked.get(0).source(), locked.size());
    try (RefreshTracing.Step span = tracing.source(locked.get(0))) {
      try {
        items = loader.loadBatch(locked);
        span.outcome("computed");
      } catch (SourceException e) {
        span.failed(e.kind().name(), e.getMessage());
        for (Registration registration : locked) {
          Fence fence = new Fence(epoch, held.get(registration).token());
          outcomes.put(
              registration.key(),
              failed(registration, fence, e.kind().name(), e.getMessage(), e.detail(), started, e.retryAfter()));
        }
        return;
      } catch (RuntimeException e) {
        span.failed("ERROR", e.getClass().getSimpleName());
        LOG.error("batch refresh of {} keys of source '{}' failed unexpectedly", locked.size(), locked.get(0).source(), e);
        for (Registration registration : locked) {
          Fence fence = new Fence(epoch, held.get(registration).token());
          outcomes.put(
              registration.key(),
              failed(registration, fence, "ERROR", "unexpected " + e.getClass().getSimpleName() + " (see the service's log)", null, started, null));
        }
        return;
      }
    }
    // Every key of the batch took the batch's time to compute: its TTR learns from that.
    Duration took = Duration.between(started, clock.instant());
    List<PreparedWrite> prepared = new ArrayList<>(locked.size());
    for (Registration registration : locked) {
      Fence fence = new Fence(epoch, held.get(registration).token());
      try (MDC.MDCCloseable key = MDC.putCloseable(LOG_KEY, registration.key())) {
        BatchItem item = items.get(registration.key());
        if (item == null || item.failure() != null) {
          SourceException e =
              item == null
                  ? new SourceException(SourceException.Kind.ERROR, "source '" + registration.source() + "' answered nothing for the key")
                  : item.failure();
          outcomes.put(registration.key(), failed(registration, fence, e.kind().name(), e.getMessage(), e.detail(), started, e.retryAfter()));
          continue;
        }
        long bytes = utf8Length(item.value().value());
        if (bytes > settings.maxValueBytes()) {
          outcomes.put(
              registration.key(),
              failed(
                  registration,
                  fence,
                  SourceException.Kind.VALUE_TOO_LARGE.name(),
                  "value of " + bytes + " bytes exceeds the limit of " + settings.maxValueBytes() + " bytes",
                  null,
                  started,
                  null));
          continue;
        }
        prepared.add(prepare(registration, item.value(), fence, took, held.get(registration)));
      } catch (CacheUnavailableException e) {
        outcomes.put(registration.key(), failed(registration, fence, "REDIS", e.getMessage(), null, started, null));
      } catch (RuntimeException e) {
        LOG.error("refresh of key '{}' failed unexpectedly", registration.key(), e);
        outcomes.put(
            registration.key(),
            failed(registration, fence, "ERROR", "unexpected " + e.getClass().getSimpleName() + " (see the service's log)", null, started, null));
      }
    }
    if (prepared.isEmpty()) {
      return;
    }
    // The values in as few script calls as the write batches allow, then each key's outcome.
    Map<String, CacheStore.WriteAttempt> attempts;
    try (RefreshTracing.Step span = tracing.write(prepared.get(0).registration())) {
      attempts = store.writeAll(prepared.stream().map(PreparedWrite::request).toList());
      span.outcome("batch of " + prepared.size());
    }
    for (PreparedWrite write : prepared) {
      Registration registration = write.registration();
      CacheStore.WriteAttempt attempt = attempts.get(registration.key());
      try (MDC.MDCCloseable key = MDC.putCloseable(LOG_KEY, registration.key())) {
        outcomes.put(
            registration.key(),
            attempt.failure() != null
                ? failed(registration, write.request().fence(), "REDIS", attempt.failure().getMessage(), null, started, null)
                : written(write, attempt.result()));
      } catch (RuntimeException e) {
        LOG.error("refresh of key '{}' failed unexpectedly", registration.key(), e);
        outcomes.put(
            registration.key(),
            failed(registration, write.request().fence(), "ERROR", "unexpected " + e.getClass().getSimpleName() + " (see the service's log)", null, started, null));
      }
    }
  }

  /** The logging context's names of the key and the source a refresh is for. */
  public static final String LOG_KEY = "key";

  public static final String LOG_SOURCE = "source";

  private RefreshOutcome refreshOnce(Registration registration, Trigger trigger) {
    // The load bound is waited for before the lock (a waiting refresh holds nothing another
    // replica could use) and before the compute clock starts (waiting is not compute time).
    Optional<SourceLoad.Admission> admission;
    try {
      admission = load.admit(registration);
    } catch (CacheUnavailableException e) {
      return failedWithoutLock(registration, e);
    }
    if (admission.isEmpty()) {
      return throttled(registration);
    }
    try (SourceLoad.Admission admitted = admission.get()) {
      return refreshAdmitted(registration, admitted, trigger);
    }
  }

  private RefreshOutcome refreshAdmitted(Registration registration, SourceLoad.Admission admitted, Trigger trigger) {
    String key = registration.key();
    Optional<KeyLocks.HeldLock> lock;
    try {
      lock = locks.tryAcquire(key, settings.lockLease());
    } catch (CacheUnavailableException e) {
      return failedWithoutLock(registration, e);
    }
    if (lock.isEmpty()) {
      LOG.debug("refresh of key '{}' skipped: another refresh holds its lock", key);
      return new Skipped(Skipped.Reason.LOCKED, lockedUntil(key));
    }
    KeyLocks.HeldLock held = lock.get();
    try {
      if (!admitted.awaitRate()) {
        held.release();
        return throttled(registration);
      }
    } catch (CacheUnavailableException e) {
      held.release();
      return failedWithoutLock(registration, e);
    } catch (RuntimeException e) {
      held.release();
      throw e;
    }
    Instant started = clock.instant();
    Fence fence = new Fence(0, held.token());
    try {
      fence = new Fence(epochs.currentEpoch(), held.token());
      // The audit's repair recomputes: the stored validator may be right while the value beside it
      // is not, and a revalidation would keep that value.
      boolean revalidate = trigger != Trigger.AUDIT && loader.revalidates(registration);
      String validator = revalidate ? store.validator(key).orElse(null) : null;
      Loaded loaded = load(registration, validator);
      if (loaded instanceof Loaded.Unchanged unchanged) {
        Optional<RefreshOutcome> revalidated = extend(registration, ttlOf(registration, unchanged.ttl()), fence, started, held);
        if (revalidated.isPresent()) {
          return revalidated.get();
        }
        // The value expired or was evicted since its validator was read: compute it after all.
        loaded = load(registration, null);
      }
      if (!(loaded instanceof Loaded.Value computed)) {
        throw new SourceException(
            SourceException.Kind.ERROR, "source '" + registration.source() + "' answered 'unchanged' to a refresh without a validator");
      }
      Duration took = Duration.between(started, clock.instant());
      long bytes = utf8Length(computed.value());
      if (bytes > settings.maxValueBytes()) {
        throw new SourceException(
            SourceException.Kind.VALUE_TOO_LARGE,
            "value of " + bytes + " bytes exceeds the limit of " + settings.maxValueBytes() + " bytes");
      }
      return write(registration, computed, fence, took, held);
    } catch (SourceException e) {
      return failed(registration, fence, e.kind().name(), e.getMessage(), e.detail(), started, e.retryAfter());
    } catch (CacheUnavailableException e) {
      return failed(registration, fence, "REDIS", e.getMessage(), null, started, null);
    } catch (RuntimeException e) {
      LOG.error("refresh of key '{}' failed unexpectedly", key, e);
      // Its message could hold anything (a value, a row): the log above has it.
      return failed(
          registration, fence, "ERROR", "unexpected " + e.getClass().getSimpleName() + " (see the service's log)", null, started, null);
    } finally {
      held.release();
    }
  }

  /**
   * When the lock another refresh holds on the key ends at the latest, so that a scheduled refresh
   * can come back then (the holder may have died); null if Redis cannot say.
   */
  private Instant lockedUntil(String key) {
    try {
      return clock.instant().plus(locks.remainingLease(key));
    } catch (CacheUnavailableException e) {
      return null;
    }
  }

  /** A write or an extension in Redis, as a step of the refresh's trace. */
  private CacheStore.WriteResult traced(Registration registration, java.util.function.Supplier<CacheStore.WriteResult> redis) {
    try (RefreshTracing.Step span = tracing.write(registration)) {
      try {
        CacheStore.WriteResult result = redis.get();
        span.outcome(result.status().name().toLowerCase());
        return result;
      } catch (CacheUnavailableException e) {
        span.failed("REDIS", e.getMessage());
        throw e;
      }
    }
  }

  /** The source's run, as a step of the refresh's trace. */
  private Loaded load(Registration registration, String validator) throws SourceException {
    try (RefreshTracing.Step span = tracing.source(registration)) {
      try {
        Loaded loaded = loader.loadIfChanged(registration, validator);
        span.outcome(loaded instanceof Loaded.Unchanged ? "unchanged" : "computed");
        return loaded;
      } catch (SourceException e) {
        span.failed(e.kind().name(), e.getMessage());
        throw e;
      } catch (RuntimeException e) {
        span.failed("ERROR", e.getClass().getSimpleName());
        throw e;
      }
    }
  }

  private RefreshOutcome write(
      Registration registration, Loaded.Value computed, Fence fence, Duration took, KeyLocks.HeldLock held) {
    PreparedWrite prepared = prepare(registration, computed, fence, took, held);
    CacheStore.WriteRequest w = prepared.request();
    CacheStore.WriteResult result =
        traced(
            registration,
            () -> store.write(w.key(), w.value(), w.fence(), w.generation(), w.meta(), w.physicalTtl(), w.history(), w.lock()));
    return written(prepared, result);
  }

  /** A value's write as planned, and what its outcome is made of. */
  private record PreparedWrite(Registration registration, CacheStore.WriteRequest request, Duration ttl, Duration took) {}

  private PreparedWrite prepare(
      Registration registration, Loaded.Value computed, Fence fence, Duration took, KeyLocks.HeldLock held) {
    Instant computedAt = clock.instant();
    Duration ttl = ttlOf(registration, computed.ttl());
    Instant expiresAt = computedAt.plus(ttl);
    return new PreparedWrite(
        registration,
        new CacheStore.WriteRequest(
            registration.key(),
            computed.value(),
            fence,
            registration.generation(),
            new CacheStore.ValueMeta(computedAt, took, expiresAt, computed.validator()),
            planner.physicalTtl(ttl),
            ttrs.settings().history(),
            held),
        ttl,
        took);
  }

  /** After the write: refused, or the key's next refresh planned and its outcome. */
  private RefreshOutcome written(PreparedWrite prepared, CacheStore.WriteResult result) {
    CacheStore.WriteRequest w = prepared.request();
    if (!result.written()) {
      return notWritten(prepared.registration(), w.fence(), result.status());
    }
    Next next = scheduleNext(prepared.registration(), prepared.ttl(), result, w.meta().expiresAt(), prepared.took(), "refreshed");
    return new Refreshed(w.meta().computedAt(), prepared.took(), w.meta().expiresAt(), next.at(), next.ttr().ttr(), w.fence());
  }


  /**
   * The source said the value still holds: extends its TTL with the fenced script. Empty when the
   * value is gone (the caller computes it; the lock is still held).
   */
  private Optional<RefreshOutcome> extend(
      Registration registration, Duration ttl, Fence fence, Instant started, KeyLocks.HeldLock held) {
    Instant now = clock.instant();
    Duration took = Duration.between(started, now);
    Instant expiresAt = now.plus(ttl);
    CacheStore.WriteResult result = traced(registration, () -> store.extend(
        registration.key(), fence, registration.generation(), now, expiresAt, planner.physicalTtl(ttl), held));
    if (result.status() == CacheStore.WriteStatus.VALUE_GONE) {
      LOG.debug("key '{}': its source said unchanged, but the value is gone; computing it", registration.key());
      return Optional.empty();
    }
    if (!result.written()) {
      return Optional.of(notWritten(registration, fence, result.status()));
    }
    // The TTR keeps coming from full computations: the stored durations are left as they were, so
    // that a change found at the next refresh still has time to be computed.
    Next next = scheduleNext(registration, ttl, result, expiresAt, took, "revalidated (unchanged)");
    return Optional.of(new Revalidated(now, took, expiresAt, next.at(), next.ttr().ttr(), fence));
  }

  /** After a write or extension: the key's TTR, its next refresh handed to the rescheduler, the logs. */
  private Next scheduleNext(
      Registration registration, Duration ttl, CacheStore.WriteResult result, Instant expiresAt, Duration took, String what) {
    TtrDecision ttr = ttrFor(ttl, registration, result.recentDurations());
    Instant planned = dispersed(planner.nextRefreshAt(expiresAt, ttr));
    // A batch source's keys due within one window share their time, and so one query (earlier only).
    Instant next =
        loader.batchForm(registration).map(batch -> Instant.ofEpochMilli(batch.aligned(planned.toEpochMilli()))).orElse(planned);
    rescheduler.reschedule(registration.key(), next);
    if (result.clearedFailures() > 0) {
      LOG.info(
          "key '{}' recovered: refreshed from source '{}' after {} failed attempts",
          registration.key(),
          registration.source(),
          result.clearedFailures());
    }
    LOG.debug(
        "{} key '{}' from source '{}' in {} ms; ttr {} ms, next refresh at {}",
        what,
        registration.key(),
        registration.source(),
        took.toMillis(),
        ttr.ttr().toMillis(),
        next);
    return new Next(ttr, next);
  }

  /**
   * After a refresh that started late, the next one moved earlier by a random part of up to {@link
   * RefreshSettings#backlogSpread()} of the period: keys that a backlog ran back to back (a Redis
   * pause, an overload) would otherwise come back due back to back, a backlog again at every cycle.
   * Earlier only, so a key is never refreshed later than planned.
   */
  private Instant dispersed(Instant planned) {
    Duration late = STARTED_LATE.get();
    if (late == null || late.compareTo(LATE_START) < 0 || settings.backlogSpread() <= 0) {
      return planned;
    }
    long period = planned.toEpochMilli() - clock.millis();
    long spread = (long) (period * settings.backlogSpread());
    return spread <= 0 ? planned : planned.minusMillis(java.util.concurrent.ThreadLocalRandom.current().nextLong(spread + 1));
  }

  /** A key's TTR and the next refresh planned from it. */
  private record Next(TtrDecision ttr, Instant at) {}

  /** A write or extension the stored state refused. */
  private RefreshOutcome notWritten(Registration registration, Fence fence, CacheStore.WriteStatus status) {
    switch (status) {
      case NEWER_STORED -> {
        // The writer of the newer value rescheduled the key.
        LOG.info(
            "refresh of key '{}' computed a value but a newer one (fence > {}) was written meanwhile; dropped it",
            registration.key(),
            fence);
        return new Skipped(Skipped.Reason.FENCED_OUT);
      }
      case COUNTER_REPAIRED -> {
        Instant retryAt = clock.instant().plus(settings.retryBase());
        rescheduler.reschedule(registration.key(), retryAt);
        LOG.warn(
            "key '{}': its lock token counter was missing from Redis (evicted?) and restarted below the stored token;"
                + " raised it, value dropped, retry at {}",
            registration.key(),
            retryAt);
        return new Skipped(Skipped.Reason.COUNTER_REPAIRED);
      }
      case REGISTRATION_GONE -> {
        LOG.info(
            "refresh of key '{}' computed a value for a registration deleted meanwhile; dropped it",
            registration.key());
        return new Skipped(Skipped.Reason.REGISTRATION_GONE);
      }
      case REGISTRATION_REPLACED -> {
        // The replacement's own refresh may have been skipped while this one held the lock: the
        // key is due now, and the dispatcher computes it with the current registration.
        rescheduler.reschedule(registration.key(), clock.instant());
        LOG.info(
            "refresh of key '{}' computed a value for a registration replaced meanwhile; dropped it,"
                + " the replacement is due now",
            registration.key());
        return new Skipped(Skipped.Reason.REGISTRATION_GONE);
      }
      default -> throw new IllegalStateException("not a refusal: " + status);
    }
  }

  /**
   * The TTL a value gets: the one it carries itself (a source's {@code valueTtl}, already bounded),
   * else its registration's.
   */
  private static Duration ttlOf(Registration registration, Duration fromValue) {
    return fromValue != null ? fromValue : registration.ttl();
  }

  /** The key's TTR from its recent compute durations, this replica's lag and the key's rate. */
  public TtrDecision ttrFor(Registration registration, java.util.List<Long> recentDurations) {
    return ttrFor(registration.ttl(), registration, recentDurations);
  }

  /** As {@link #ttrFor(Registration, java.util.List)}, for a value whose TTL is {@code ttl}. */
  public TtrDecision ttrFor(Duration ttl, Registration registration, java.util.List<Long> recentDurations) {
    return ttrs.decide(
        ttl,
        recentDurations,
        lag.p99(),
        heat.rateOf(registration.key()),
        heat.hotThreshold());
  }

  /**
   * @param fullError what the key may show (cut at {@link #MAX_ERROR_CHARS}): a message the service
   *     made, never a source's own text
   * @param detail what the source itself said, for the log only; null for nothing more
   */
  private RefreshOutcome failed(
      Registration registration,
      Fence fence,
      String kind,
      String fullError,
      String detail,
      Instant started,
      Duration retryAfter) {
    String error = bounded(fullError);
    Instant now = clock.instant();
    Duration took = Duration.between(started, now);
    int failures;
    try {
      failures =
          store.recordFailure(
              registration.key(),
              fence,
              kind,
              error,
              now,
              registration.ttl().plus(settings.staleGrace()));
    } catch (CacheUnavailableException e) {
      failures = 1;
    }
    if (failures == 0) {
      // A newer refresh already succeeded: this failure is history, not news.
      return new Skipped(Skipped.Reason.FENCED_OUT);
    }
    Instant retryAt = now.plus(retryDelay(failures, retryAfter));
    rescheduler.reschedule(registration.key(), retryAt);
    logFailure(registration, kind, detail == null ? fullError : fullError + " (the source said: " + detail + ")", failures, retryAt);
    return new Failed(kind, error, took, failures, retryAt);
  }

  private static String bounded(String error) {
    if (error == null || error.length() <= MAX_ERROR_CHARS) {
      return error;
    }
    return error.substring(0, MAX_ERROR_CHARS) + "...";
  }

  /**
   * The backoff, or the source's own {@code Retry-After} when that is later: a source that asked
   * for time is given it (up to {@link #MAX_RETRY_AFTER}, so that a wrong header cannot park a key
   * for days).
   */
  private Duration retryDelay(int failures, Duration retryAfter) {
    Duration backoff = planner.retryDelay(failures);
    if (retryAfter == null || retryAfter.compareTo(backoff) <= 0) {
      return backoff;
    }
    return retryAfter.compareTo(MAX_RETRY_AFTER) > 0 ? MAX_RETRY_AFTER : retryAfter;
  }

  private RefreshOutcome throttled(Registration registration) {
    Instant retryAt = clock.instant().plus(settings.retryBase());
    rescheduler.reschedule(registration.key(), retryAt);
    LOG.debug("refresh of key '{}' throttled by its datasource's load bound; retry at {}", registration.key(), retryAt);
    return new Skipped(Skipped.Reason.THROTTLED);
  }

  private RefreshOutcome failedWithoutLock(Registration registration, CacheUnavailableException e) {
    Instant retryAt = clock.instant().plus(planner.retryDelay(1));
    rescheduler.reschedule(registration.key(), retryAt);
    LOG.warn(
        "refresh of key '{}' could not take its lock, Redis unavailable ({}); old value kept, retry at {}",
        registration.key(),
        e.getMessage(),
        retryAt);
    return new Failed("REDIS", e.getMessage(), Duration.ZERO, 1, retryAt);
  }

  private static void logFailure(
      Registration registration, String kind, String error, int failures, Instant retryAt) {
    if (failures == 1) {
      LOG.warn(
          "refresh of key '{}' from source '{}' failed ({}): {}; old value kept, retry at {}",
          registration.key(),
          registration.source(),
          kind,
          error,
          retryAt);
    } else {
      LOG.debug(
          "refresh of key '{}' failed again ({} in a row, {}): {}; retry at {}",
          registration.key(),
          failures,
          kind,
          error,
          retryAt);
    }
  }

  /**
   * The value's size in UTF-8 without copying it (this runs on every refresh). Public for the
   * benchmark that compares it with {@code getBytes(UTF_8).length}.
   */
  public static long utf8Length(String text) {
    long bytes = 0;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c < 0x80) {
        bytes += 1;
      } else if (c < 0x800) {
        bytes += 2;
      } else if (Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
        bytes += 4;
        i++;
      } else if (Character.isSurrogate(c)) {
        bytes += 1; // an unpaired surrogate is encoded as '?'
      } else {
        bytes += 3;
      }
    }
    return bytes;
  }
}
