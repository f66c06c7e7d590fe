package io.refresher.wiring;

import io.dropwizard.core.setup.Environment;
import io.refresher.metrics.RefreshMetrics.SourceTotals;
import io.refresher.overview.OverviewHistory;
import java.time.Duration;
import java.time.InstantSource;
import java.util.Map;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The console's overview: this replica's figures sampled every {@link #INTERVAL} into a history
 * of {@link #KEPT} samples (ten minutes), which {@code GET /v1/overview} serves.
 */
record OverviewWiring(OverviewHistory history, int hotKeysCap) {

  private static final Logger LOG = LoggerFactory.getLogger(OverviewWiring.class);
  static final Duration INTERVAL = Duration.ofSeconds(5);
  static final int KEPT = 120;

  static OverviewWiring wire(
      Environment environment,
      int hotKeysCap,
      DatabaseWiring database,
      RedisWiring redis,
      AccessWiring access,
      RefreshWiring refresh,
      InstantSource localClock) {
    OverviewHistory history =
        new OverviewHistory(
            new OverviewHistory.Readings() {
              @Override
              public Map<String, SourceTotals> totals() {
                return refresh.metrics().sourceTotals();
              }

              @Override
              public double lagP99Millis() {
                return refresh.metrics().lagP99Millis();
              }

              @Override
              public int hotKeys() {
                return access.hotSet().size();
              }

              @Override
              public boolean redisUp() {
                return redis.reachability().reachable();
              }

              @Override
              public boolean postgresUp() {
                return database.availability().isAvailable();
              }
            },
            localClock,
            KEPT);
    ScheduledExecutorService sampler = environment.lifecycle().scheduledExecutorService("overview-%d").threads(1).build();
    Runnable sample =
        new FailureStreakLog(LOG, "overview sampling", FailureStreakLog.REPEAT, localClock).around(history);
    environment.lifecycle().manage(
        Lifecycles.atStart(
            "overview sampling",
            () -> sampler.scheduleWithFixedDelay(sample, 0, INTERVAL.toMillis(), TimeUnit.MILLISECONDS)));
    return new OverviewWiring(history, hotKeysCap);
  }
}
