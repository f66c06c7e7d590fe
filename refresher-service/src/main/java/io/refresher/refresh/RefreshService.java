package io.refresher.refresh;

import java.time.Instant;
import io.refresher.registry.Registration;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * What the admin API asks of the refresh side: start keeping a new registration fresh, refresh
 * one now, stop, and report a key's live status.
 */
public final class RefreshService {

  private final Refresher refresher;
  private final DueIndex index;
  private final CacheStore store;
  private final RefreshPlanner planner;
  private final DispatchSettings dispatch;
  private final InstantSource clock;

  public RefreshService(
      Refresher refresher,
      DueIndex index,
      CacheStore store,
      RefreshPlanner planner,
      DispatchSettings dispatch,
      InstantSource clock) {
    this.refresher = refresher;
    this.index = index;
    this.store = store;
    this.planner = planner;
    this.dispatch = dispatch;
    this.clock = clock;
  }

  /**
   * Puts a (new or replaced) registration in the due index and computes its value at once. The
   * index entry goes in first, with a claim-lease delay, so that the key is refreshed even if this
   * replica dies before the computation finishes.
   */
  public RefreshOutcome onRegistered(Registration registration) {
    try {
      index.schedule(registration.key(), clock.millis() + dispatch.claimLease().toMillis());
    } catch (CacheUnavailableException e) {
      // The reconciler adds it later; the registration itself is safe in PostgreSQL.
    }
    return refresher.refresh(registration, Trigger.REGISTERED);
  }

  public RefreshOutcome refreshNow(Registration registration) {
    return refresher.refresh(registration, Trigger.MANUAL);
  }

  /** Stops refreshing; evicting also deletes the value and its metadata. */
  public void onDeleted(String key, boolean evict) {
    index.remove(List.of(key));
    if (evict) {
      store.evict(key);
    }
  }

  /** Live status as Redis knows it; empty fields when Redis has nothing. */
  public Status status(Registration registration) {
    Optional<KeyState> state = store.state(registration.key());
    OptionalLong planned = index.plannedAt(registration.key());
    return new Status(
        state.orElse(null),
        planned.isPresent() ? Instant.ofEpochMilli(planned.getAsLong()) : null,
        planner.ttr(registration.ttl()));
  }

  /** A key's live status. */
  public record Status(KeyState state, Instant nextRefreshAt, Duration ttr) {}
}
