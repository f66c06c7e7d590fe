package io.refresher.refresh;

import io.refresher.failure.CacheUnavailableException;

import io.refresher.refresh.ChangeCoalescer.Result;
import io.refresher.registry.RefreshPolicy;
import io.refresher.registry.Registration;
import io.refresher.registry.RegistrationLookup;
import io.refresher.source.BatchForm;
import io.refresher.failure.RegistryUnavailableException;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies one (coalesced) change to a key: refresh it, or evict its value.
 *
 * <ul>
 *   <li>A key the service keeps fresh — its policy is {@code always}, or it is hot (in this
 *       replica's view of the hot set, or due in the shared due index, which is where the
 *       dispatcher finds the keys it keeps fresh: the hot ones and the {@code always} ones) — is
 *       <em>refreshed</em> through {@link Refresher} (lock, load bound, fence, as every refresh).
 *       Deleting it instead would send every reader of a hot key to the source at once: a
 *       stampede.
 *   <li>Any other key covered by a registration or template is <em>evicted</em>: nobody reads it
 *       much, so a recomputation now would likely be wasted, and the next reader computes it.
 *       The eviction takes the key's lock, so no refresh in flight can write the older value after
 *       it ({@link CacheStore#evictValue}).
 *   <li>A key nothing covers is ignored.
 * </ul>
 *
 * <p>A kept key of a batch source is refreshed with the other changed keys of its source: one
 * query for all that arrive while the previous one runs ({@link ChangeBatches}).
 *
 * <p>Either way, a lock held by another refresh answers {@link Result.Busy}: that refresh may have
 * read the row before the change committed, so the coalescer tries again when the lock ends.
 *
 * <p>Failures: an unreachable registry or Redis is logged (WARN once per streak) and counted; the
 * change is then lost, as one sent while the listener was away would be, and the key's own
 * refresh cycle or TTL bounds the staleness. (A refresh's own failures are the refresh path's: it
 * keeps the old value and plans a retry.)
 */
public final class ChangeRefresh implements ChangeCoalescer.Action {

  private static final Logger LOG = LoggerFactory.getLogger(ChangeRefresh.class);

  private final RegistrationLookup registrations;
  private final Predicate<String> hotSet;
  private final DueIndex due;
  private final Refresher refresher;
  private final ChangeBatches batches;
  private final KeyLocks locks;
  private final CacheStore store;
  private final Duration evictLease;
  private final ChangeEvents events;
  private final InstantSource clock;
  private final AtomicBoolean failing = new AtomicBoolean();

  /**
   * @param hotSet whether this replica's view of the hot set has the key (no round trip)
   * @param due the shared due index: a key in it is kept fresh (checked when the view says no)
   * @param evictLease the lease of the lock an eviction takes (it holds it for one round trip)
   */
  public ChangeRefresh(
      RegistrationLookup registrations,
      Predicate<String> hotSet,
      DueIndex due,
      Refresher refresher,
      ChangeBatches batches,
      KeyLocks locks,
      CacheStore store,
      Duration evictLease,
      ChangeEvents events,
      InstantSource clock) {
    this.registrations = registrations;
    this.hotSet = hotSet;
    this.due = due;
    this.refresher = refresher;
    this.batches = batches;
    this.locks = locks;
    this.store = store;
    this.evictLease = evictLease;
    this.events = events;
    this.clock = clock;
  }

  @Override
  public Result run(String key) {
    return start(key).toCompletableFuture().join();
  }

  /**
   * A kept key of a batch source goes with the next query of its source ({@link ChangeBatches}):
   * the answer comes when that query ran. Any other key is refreshed or evicted here.
   */
  @Override
  public CompletionStage<Result> start(String key) {
    try {
      Registration registration = registrations.findAll(List.of(key)).get(key);
      if (registration == null) {
        LOG.debug("change of key '{}' ignored: no registration or template covers it", key);
        events.ignored();
        return CompletableFuture.completedFuture(Result.DONE);
      }
      if (!keptFresh(registration)) {
        return CompletableFuture.completedFuture(applied(evict(key)));
      }
      int maxBatch = refresher.batchForm(registration).map(BatchForm::maxBatch).orElse(1);
      if (maxBatch > 1) {
        return batches
            .refresh(registration, maxBatch)
            .handle((outcome, error) -> error == null ? applied(refreshed(outcome)) : failed(key, error));
      }
      return CompletableFuture.completedFuture(applied(refreshed(refresher.refresh(registration, Trigger.CHANGE))));
    } catch (RegistryUnavailableException | CacheUnavailableException e) {
      return CompletableFuture.completedFuture(failed(key, e));
    }
  }

  private Result applied(Result result) {
    if (failing.compareAndSet(true, false)) {
      LOG.info("changes are applied again");
    }
    return result;
  }

  private Result failed(String key, Throwable error) {
    Throwable cause = error instanceof java.util.concurrent.CompletionException && error.getCause() != null ? error.getCause() : error;
    if (!(cause instanceof RegistryUnavailableException || cause instanceof CacheUnavailableException)) {
      LOG.error("change of key '{}' could not be applied", key, cause);
      events.failed();
      return Result.FAILED;
    }
    events.failed();
    if (failing.compareAndSet(false, true)) {
      LOG.warn(
          "change of key '{}' not applied ({}); changes are lost until it answers again, the keys' refresh cycles bring them",
          key,
          cause.getMessage());
    } else {
      LOG.debug("change of key '{}' not applied: {}", key, cause.getMessage());
    }
    return Result.FAILED;
  }

  /**
   * The action for rows that are gone (a delete in the log feed): a covered key's value is evicted
   * whether the key is kept or not, since a refresh would find no row and keep serving the old
   * value.
   */
  public ChangeCoalescer.Action evictions() {
    return key -> {
      try {
        if (registrations.findAll(List.of(key)).get(key) == null) {
          events.ignored();
          return Result.DONE;
        }
        return evict(key);
      } catch (RegistryUnavailableException | CacheUnavailableException e) {
        events.failed();
        LOG.debug("eviction of key '{}' not applied: {}", key, e.getMessage());
        return Result.FAILED;
      }
    };
  }

  /** Whether the service keeps the key fresh by itself: then a change refreshes it. */
  boolean keptFresh(Registration registration) {
    if (registration.policy() == RefreshPolicy.ALWAYS || hotSet.test(registration.key())) {
      return true;
    }
    try {
      return due.plannedAt(registration.key()).isPresent();
    } catch (CacheUnavailableException e) {
      // Cannot tell: refresh rather than evict (a wrong eviction of a hot key is the stampede);
      // the refresh path copes with Redis being away.
      return true;
    }
  }

  private Result refreshed(RefreshOutcome outcome) {
    if (outcome instanceof RefreshOutcome.Skipped skipped && skipped.reason() == RefreshOutcome.Skipped.Reason.LOCKED) {
      return new Result.Busy(skipped.lockedUntil());
    }
    events.refreshed();
    return Result.DONE;
  }

  private Result evict(String key) {
    Optional<KeyLocks.HeldLock> lock = locks.tryAcquire(key, evictLease);
    if (lock.isEmpty()) {
      return new Result.Busy(lockedUntil(key));
    }
    try {
      store.evictValue(key);
    } finally {
      lock.get().release();
    }
    LOG.debug("change of key '{}': value evicted (the key is not kept fresh)", key);
    events.evicted();
    return Result.DONE;
  }

  private Instant lockedUntil(String key) {
    try {
      return clock.instant().plus(locks.remainingLease(key));
    } catch (CacheUnavailableException e) {
      return null;
    }
  }
}
