package io.refresher.refresh;

import io.refresher.failure.CacheUnavailableException;

import java.time.Duration;
import java.time.Instant;
import io.refresher.registry.RefreshPolicy;
import io.refresher.registry.Registration;
import java.time.InstantSource;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the admin API asks of the refresh side: start keeping a new registration fresh, refresh
 * one now, stop, and report a key's live status.
 */
public final class RefreshService {

  private static final Logger LOG = LoggerFactory.getLogger(RefreshService.class);

  private final Refresher refresher;
  private final DueIndex index;
  private final CacheStore store;
  private final HotSetMembership hotSet;
  private final DispatchSettings dispatch;
  private final InstantSource clock;
  private final Duration tombstone;
  /**
   * Keys registered while Redis was unreachable, to be put in the due index when it answers
   * again (the periodic sweep would find them too, minutes later). Bounded: beyond it, the sweep.
   */
  private final Set<String> unindexed = ConcurrentHashMap.newKeySet();

  private static final int MAX_UNINDEXED = 100_000;

  public RefreshService(
      Refresher refresher,
      DueIndex index,
      CacheStore store,
      HotSetMembership hotSet,
      DispatchSettings dispatch,
      Duration tombstone,
      InstantSource clock) {
    this.tombstone = tombstone;
    this.refresher = refresher;
    this.index = index;
    this.store = store;
    this.hotSet = hotSet;
    this.dispatch = dispatch;
    this.clock = clock;
  }

  /**
   * Puts a (new or replaced) registration in the due index and computes its value at once. The
   * index entry goes in first, with a claim-lease delay, so that the key is refreshed even if this
   * replica dies before the computation finishes. A key with the {@code hot} policy also joins the
   * hot set, so that it is kept fresh for the cold-after grace, and after that only while read.
   *
   * <p>A replacement is recorded in Redis first ({@link CacheStore#supersede}): a refresh of the
   * replaced registration still running then has its write refused, and reschedules the key at
   * once, so the replacement is computed as soon as the key's lock is free, even when its own
   * refresh here was skipped because that lock was held.
   */
  public RefreshOutcome onRegistered(Registration registration) {
    try {
      if (registration.generation() > 0) {
        store.supersede(registration.key(), registration.generation(), tombstone);
      }
      if (registration.policy() == RefreshPolicy.HOT) {
        hotSet.admit(registration.key(), clock.millis());
      }
      index.schedule(registration.key(), clock.millis() + dispatch.claimLease().toMillis());
    } catch (CacheUnavailableException e) {
      // Put in the index when Redis answers again; the registration is safe in PostgreSQL.
      if (unindexed.size() < MAX_UNINDEXED) {
        unindexed.add(registration.key());
      }
    }
    return refresher.refresh(registration, Trigger.REGISTERED);
  }

  /**
   * Redis answers again after an outage: adds the keys registered meanwhile to the due index,
   * due now (their registration's refresh failed). Keeps them for the next call if Redis fails
   * again.
   */
  public int indexRegisteredDuringOutage() {
    if (unindexed.isEmpty()) {
      return 0;
    }
    List<String> keys = new java.util.ArrayList<>(unindexed);
    int added = index.addMissing(keys, clock.millis());
    keys.forEach(unindexed::remove);
    return added;
  }

  public RefreshOutcome refreshNow(Registration registration) {
    return refresher.refresh(registration, Trigger.MANUAL);
  }

  /**
   * Records in Redis that the registration of {@code generation} is being deleted, so that a
   * refresh of it still running cannot write afterwards; with {@code evict} the value goes too.
   * Runs before the deletion commits: an eviction that cannot reach Redis throws, and the
   * registration stays. Without eviction an unreachable Redis is only logged: the value expires on
   * its own, and a refresh in flight during the outage may still write it once.
   */
  public void retire(String key, long generation, boolean evict) {
    try {
      store.retire(key, generation, evict, tombstone);
    } catch (CacheUnavailableException e) {
      if (evict) {
        throw e;
      }
      LOG.warn("key '{}' deleted while Redis was unreachable; its value will expire on its own ({})", key, e.getMessage());
    }
  }

  /** After a deletion committed: no more refreshes. Best effort; the dispatcher drops stale entries. */
  public void onDeleted(String key) {
    try {
      index.remove(List.of(key));
      hotSet.remove(key);
    } catch (CacheUnavailableException e) {
      LOG.debug("due entry of deleted key '{}' left for the dispatcher to drop: {}", key, e.getMessage());
    }
  }

  /** Live status as Redis knows it; empty fields when Redis has nothing. */
  public Status status(Registration registration) {
    Optional<KeyState> state = store.state(registration.key());
    OptionalLong planned = index.plannedAt(registration.key());
    List<Long> recent = state.map(KeyState::recentDurations).orElse(List.of());
    return new Status(
        state.orElse(null),
        planned.isPresent() ? Instant.ofEpochMilli(planned.getAsLong()) : null,
        refresher.ttrFor(registration, recent));
  }

  /**
   * A key's live status.
   *
   * @param nextRefreshAt when the key is due, or null when it is not being refreshed (cold)
   * @param ttr its TTR as computed now, with the inputs
   */
  public record Status(KeyState state, Instant nextRefreshAt, TtrDecision ttr) {}
}
