package io.refresher.wiring;

import com.codahale.metrics.CachedGauge;
import com.codahale.metrics.Gauge;
import com.codahale.metrics.MetricRegistry;
import io.dropwizard.core.setup.Environment;
import io.refresher.metrics.JvmGcMetrics;
import io.refresher.metrics.PrewarmMetrics;
import io.refresher.metrics.PrometheusEndpoint;
import io.refresher.metrics.SuppliedCounter;
import io.refresher.redis.RedisDueIndex;
import io.refresher.redis.RedisEpochGuard;
import io.refresher.refresh.RefreshDispatcher;
import java.util.concurrent.TimeUnit;

/**
 * The metrics of the dispatcher, the epoch guard, the refill, the due index and the JVM's
 * collectors, and {@code /metrics} in Prometheus's format on the admin port. The other parts'
 * metrics are registered where they are built.
 */
final class MetricsWiring {

  private MetricsWiring() {}

  static void register(Environment environment, RedisWiring redis, PrewarmWiring prewarm, RefreshWiring refresh, AuditWiring audit) {
    MetricRegistry metrics = environment.metrics();
    RefreshDispatcher dispatcher = refresh.dispatcher();
    metrics.register("refresher.dispatch.in-flight", (Gauge<Integer>) dispatcher::inFlight);
    // Running totals since start are counters (<name>_total in Prometheus), so that increase()
    // and rate() over them survive a restart; docs/operations.md alerts on them.
    SuppliedCounter.register(metrics, "refresher.dispatch.claimed", dispatcher::claimedTotal);
    SuppliedCounter.register(metrics, "refresher.dispatch.dropped-claims", dispatcher::droppedClaims);
    SuppliedCounter.register(metrics, "refresher.dispatch.recovered-claims", dispatcher::adoptedClaims);

    RedisEpochGuard guard = prewarm.epochGuard();
    metrics.register("refresher.redis.epoch", (Gauge<Long>) guard::currentEpoch);
    SuppliedCounter.register(metrics, "refresher.redis.data-losses", guard::dataLossesHandled);
    SuppliedCounter.register(metrics, "refresher.redis.failovers", guard::failoversHandled);
    SuppliedCounter.register(metrics, "refresher.redis.returns-with-data", guard::returnsWithData);
    SuppliedCounter.register(metrics, "refresher.redis.missed-checks", guard::missedChecks);
    PrewarmMetrics.register(metrics, prewarm.prewarmer());

    metrics.register("refresher.due.size", new DueIndexSize(redis.dueIndex()));
    // Script calls of the batched lock and write scripts: over the refreshes, the Redis requests
    // a refresh costs (docs/performance.md), a fraction of one under load.
    SuppliedCounter.register(metrics, "refresher.redis.lock-requests", refresh.locks()::requests);
    SuppliedCounter.register(metrics, "refresher.redis.write-requests", refresh.store()::writeRequests);
    JvmGcMetrics.register(metrics);
    java.util.List<io.prometheus.metrics.model.registry.Collector> natives = new java.util.ArrayList<>(refresh.metrics().collectors());
    natives.addAll(audit.metrics().collectors());
    PrometheusEndpoint.register(metrics, environment.admin(), natives);
  }

  /**
   * Entries in the due index, counted at most every 10 s (one {@code ZCARD} per shard); -1 while
   * Redis cannot be asked.
   */
  private static final class DueIndexSize extends CachedGauge<Long> {

    private final RedisDueIndex dueIndex;

    DueIndexSize(RedisDueIndex dueIndex) {
      super(10, TimeUnit.SECONDS);
      this.dueIndex = dueIndex;
    }

    @Override
    protected Long loadValue() {
      try {
        return dueIndex.size();
      } catch (RuntimeException e) {
        return -1L;
      }
    }
  }
}
