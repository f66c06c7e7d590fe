package io.refresher.wiring;

import io.dropwizard.core.setup.Environment;
import io.refresher.config.RefresherConfiguration;
import io.refresher.health.SchedulerHealthCheck;
import io.refresher.scheduling.QuartzManager;
import io.refresher.metrics.FreshnessMetrics;
import io.refresher.scheduling.AuditJob;
import io.refresher.scheduling.FreshnessJob;
import io.refresher.scheduling.ReconcileDueIndexJob;
import io.refresher.scheduling.SampleAccessJob;
import io.refresher.scheduling.SnapshotPopularityJob;
import java.time.Duration;
import java.time.InstantSource;
import java.util.Map;

/**
 * The cluster-wide jobs, each run by one replica at a time through Quartz's JDBC store: the due
 * index's reconciliation, the sampling of the read counters, the popularity snapshot; and the
 * {@code scheduler} health check, which also watches the dispatcher.
 */
final class SchedulingWiring {

  private SchedulingWiring() {}

  static QuartzManager wire(
      RefresherConfiguration config,
      Environment environment,
      DatabaseWiring database,
      AccessWiring access,
      RefreshWiring refresh,
      AuditWiring audit,
      InstantSource localClock)
      throws Exception {
    Duration freshnessEvery = config.getScheduler().getFreshnessInterval().toJavaDuration();
    Duration auditEvery = audit.settings().round();
    FreshnessMetrics freshness =
        new FreshnessMetrics(
            environment.metrics(),
            config.getSources().keySet(),
            localClock,
            // firings go to any replica: its last report holds for a few of them
            freshnessEvery.multipliedBy(3));
    QuartzManager quartz =
        new QuartzManager(
            config.getScheduler().getQuartzName(),
            database.quartzPool(),
            config.getScheduler().getQuartzThreads(),
            Map.of(
                ReconcileDueIndexJob.class, new ReconcileDueIndexJob(refresh.reconciler()),
                FreshnessJob.class, new FreshnessJob(refresh.freshness(), freshness::report),
                AuditJob.class, new AuditJob(audit.audit()),
                SampleAccessJob.class, new SampleAccessJob(access.hotKeys(), access.refreshView()),
                SnapshotPopularityJob.class, new SnapshotPopularityJob(access.popularity())),
            localClock);
    Duration reconcileEvery = config.getScheduler().getReconcileInterval().toJavaDuration();
    Duration sampleEvery = access.settings().sampleInterval();
    Duration snapshotEvery = config.getAccess().getSnapshotInterval().toJavaDuration();
    environment.lifecycle().manage(
        Lifecycles.managed(
            "Quartz scheduler",
            () -> {
              quartz.every("reconcile-due-index", ReconcileDueIndexJob.class, reconcileEvery, reconcileEvery);
              quartz.every("sample-access", SampleAccessJob.class, sampleEvery, sampleEvery);
              quartz.every("snapshot-popularity", SnapshotPopularityJob.class, snapshotEvery, snapshotEvery);
              quartz.every("freshness", FreshnessJob.class, freshnessEvery, freshnessEvery);
              // Scheduled even when no datasource is audited (a round then does nothing), so that
              // a replica with the audit on and one without agree on the cluster's schedule.
              quartz.every("consistency-audit", AuditJob.class, auditEvery, auditEvery);
              quartz.start();
            },
            quartz::stop));
    environment.healthChecks().register("scheduler", new SchedulerHealthCheck(refresh.dispatcher(), quartz));
    return quartz;
  }
}
