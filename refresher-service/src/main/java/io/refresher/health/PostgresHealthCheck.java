package io.refresher.health;

import com.codahale.metrics.health.HealthCheck;
import org.jdbi.v3.core.Jdbi;

/**
 * Ready only while the service's own PostgreSQL answers. Degraded mode while it is down: values
 * already in Redis stay served, refreshes back off, the admin API answers 503.
 */
public final class PostgresHealthCheck extends HealthCheck {

  private final Jdbi jdbi;

  public PostgresHealthCheck(Jdbi jdbi) {
    this.jdbi = jdbi;
  }

  @Override
  protected Result check() {
    try {
      jdbi.withHandle(handle -> handle.createQuery("SELECT 1").mapTo(Integer.class).one());
      return Result.healthy();
    } catch (RuntimeException e) {
      return Result.unhealthy("PostgreSQL unavailable: " + e.getMessage());
    }
  }
}
