package io.refresher.health;

import com.codahale.metrics.health.HealthCheck;
import io.refresher.refresh.RefreshDispatcher;
import io.refresher.scheduling.QuartzManager;

/** Ready while the dispatcher runs and its last tick succeeded, and Quartz is started. */
public final class SchedulerHealthCheck extends HealthCheck {

  private final RefreshDispatcher dispatcher;
  private final QuartzManager quartz;

  public SchedulerHealthCheck(RefreshDispatcher dispatcher, QuartzManager quartz) {
    this.dispatcher = dispatcher;
    this.quartz = quartz;
  }

  @Override
  protected Result check() {
    if (!dispatcher.isRunning()) {
      return Result.unhealthy("refresh dispatcher is not running");
    }
    if (!quartz.isRunning()) {
      return Result.unhealthy("Quartz scheduler is not running");
    }
    int failures = dispatcher.consecutiveTickFailures();
    if (failures > 0) {
      return Result.unhealthy("refresh dispatcher failed its last " + failures + " ticks");
    }
    return Result.builder()
        .healthy()
        .withDetail("inFlight", dispatcher.inFlight())
        .withDetail("lastTick", dispatcher.lastHealthyTickMillis())
        .build();
  }
}
