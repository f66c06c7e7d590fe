package io.refresher.health;

import com.codahale.metrics.health.HealthCheck;
import io.refresher.persistence.DatabaseAvailability;
import java.time.InstantSource;

/**
 * Ready only while the service's own PostgreSQL answers its probe. Degraded mode while it is down:
 * values already in Redis stay served, refreshes back off, the admin API answers 503 at once.
 *
 * <p>The check reads what the probe found and does no I/O itself: a check that queried the
 * database waited out the pool's connection timeout on every run while the database was down (and
 * forever on a frozen one), so readiness noticed an outage only after 15-20 s, or never.
 */
public final class PostgresHealthCheck extends HealthCheck {

  private final DatabaseAvailability availability;
  private final InstantSource clock;

  public PostgresHealthCheck(DatabaseAvailability availability, InstantSource clock) {
    this.availability = availability;
    this.clock = clock;
  }

  @Override
  protected Result check() {
    return availability
        .outage()
        .map(outage -> Result.builder()
            .unhealthy()
            .withMessage("PostgreSQL unavailable: " + outage.cause())
            .withDetail("since", outage.since().toString())
            .withDetail("forMillis", clock.millis() - outage.since().toEpochMilli())
            .build())
        .orElseGet(Result::healthy);
  }
}
