package io.refresher.persistence;

import java.time.Instant;
import java.time.InstantSource;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

/**
 * What the service knows about its own PostgreSQL: available, or down since when and why. The
 * {@link DatabaseProbe} is the only writer; {@link FailFastDataSource} and the readiness check
 * read it. Starts available: until the first probe says otherwise, requests try the database.
 */
public final class DatabaseAvailability {

  /** A known outage: since when, and the probe's last error. */
  public record Outage(Instant since, String cause) {}

  private final InstantSource clock;
  private final AtomicReference<Outage> outage = new AtomicReference<>();

  public DatabaseAvailability(InstantSource clock) {
    this.clock = clock;
  }

  public Optional<Outage> outage() {
    return Optional.ofNullable(outage.get());
  }

  public boolean isAvailable() {
    return outage.get() == null;
  }

  /** Records a failed probe; returns true if this starts an outage (it was available before). */
  boolean markDown(String cause) {
    Outage previous = outage.getAndUpdate(current -> new Outage(current == null ? clock.instant() : current.since(), cause));
    return previous == null;
  }

  /** Records a successful probe; returns the outage it ends, if there was one. */
  Optional<Outage> markUp() {
    return Optional.ofNullable(outage.getAndSet(null));
  }
}
