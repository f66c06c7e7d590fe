package io.refresher.wiring;

import io.dropwizard.core.setup.Environment;
import io.refresher.config.RefresherConfiguration;
import io.refresher.config.SourceFactory;
import io.refresher.metrics.AuditMetrics;
import io.refresher.redis.RedisAuditLedger;
import io.refresher.refresh.Trigger;
import io.refresher.refresh.audit.AuditListeners;
import io.refresher.refresh.audit.AuditSettings;
import io.refresher.refresh.audit.ConsistencyAudit;
import io.refresher.refresh.audit.ConsistencyCheck;
import io.refresher.source.SourceDefinition;
import java.time.InstantSource;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The consistency audit: its rounds (a Quartz job, {@link SchedulingWiring}), the sample checks on
 * threads of their own, the ledger in Redis behind {@code GET /v1/audit}, and its metrics.
 */
record AuditWiring(
    AuditSettings settings,
    ConsistencyAudit audit,
    RedisAuditLedger ledger,
    AuditMetrics metrics,
    ScheduledThreadPoolExecutor threads,
    InstantSource clock) {

  /**
   * Samples that may wait on a source at once on the replica running a round: a rate of a few per
   * second with sources of a few hundred milliseconds needs a few; the load bound holds the rest.
   */
  private static final int THREADS = 4;

  static AuditWiring wire(
      RefresherConfiguration config,
      Environment environment,
      RedisWiring redis,
      RegistryWiring registry,
      AccessWiring access,
      SourcesWiring sources,
      RefreshWiring refresh) {
    Map<String, Double> rates = new LinkedHashMap<>();
    rates.put(SourceFactory.DEFAULT_DATASOURCE, config.getDatabase().getAuditSamplesPerSecond());
    config.getDatasources().forEach((name, datasource) -> rates.put(name, datasource.getAuditSamplesPerSecond()));
    config.getHttpEndpoints().forEach((name, endpoint) -> rates.put(name, endpoint.getAuditSamplesPerSecond()));
    AuditSettings settings = config.getAudit().build(rates);

    RedisAuditLedger ledger = new RedisAuditLedger(redis.redisson(), redis.reachability(), settings.window(), redis.clock());
    AuditMetrics metrics =
        new AuditMetrics(
            settings.objective(),
            sources.catalog().all().stream()
                .filter(source -> settings.samplesPerRound(source.datasource()) > 0)
                .map(SourceDefinition::name)
                .toList());
    ScheduledThreadPoolExecutor threads = Threads.scheduler("refresher-audit-", THREADS);
    ConsistencyCheck check =
        new ConsistencyCheck(
            refresh.store()::served,
            sources.loader(),
            sources.shares(),
            redis.dueIndex()::plannedAt,
            registration -> refresh.refresher().refresh(registration, Trigger.AUDIT),
            AuditListeners.all(metrics, AuditListeners.recordingIn(ledger)),
            (delayMillis, task) -> threads.schedule(task, delayMillis, TimeUnit.MILLISECONDS),
            settings,
            redis.clock());
    ConsistencyAudit audit =
        new ConsistencyAudit(
            registry.repository(),
            () -> access.hotSetStore().all().keySet(),
            registry.resolver(),
            source -> sources.catalog().find(source).map(SourceDefinition::datasource).orElse(null),
            check,
            threads,
            settings,
            redis.clock(),
            new Random());
    return new AuditWiring(settings, audit, ledger, metrics, threads, redis.clock());
  }

  /**
   * Registers the audit's stop with the lifecycle: after the Quartz scheduler, so that it is
   * stopped before it; a round under way then ends at once instead of holding the scheduler's
   * shutdown, and second looks still waiting are dropped.
   */
  static void manage(Environment environment, AuditWiring wiring) {
    environment.lifecycle().manage(
        Lifecycles.managed(
            "consistency audit",
            () -> {},
            () -> {
              wiring.audit().stop();
              wiring.threads().shutdownNow();
            }));
  }
}
