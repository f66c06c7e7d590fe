package io.refresher.spring.boot;

import io.refresher.client.AccessCounter;
import io.refresher.client.RefresherClient;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * {@code refresher} in the Actuator's health: UP while counted reads reach Redis, DOWN while the
 * latest flush failed (the service no longer sees this instance's reads, so its keys may cool and
 * expire). Reads and loads go on either way: the application's own {@code redis} indicator says
 * whether Redis answers.
 */
public final class RefresherHealthIndicator extends AbstractHealthIndicator {

  private final RefresherClient client;

  public RefresherHealthIndicator(RefresherClient client) {
    super("Refresher client health check failed");
    this.client = client;
  }

  @Override
  protected void doHealthCheck(Health.Builder builder) {
    AccessCounter.Stats access = client.stats().access();
    (access.failing() ? builder.down() : builder.up())
        .withDetail("pendingKeys", access.pendingKeys())
        .withDetail("flushFailures", access.flushFailures())
        .withDetail("droppedReads", access.dropped())
        .withDetail("unconfirmedReads", access.unconfirmed());
  }
}
