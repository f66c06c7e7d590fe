package io.refresher.scheduling;

import io.refresher.refresh.FreshnessSweep;
import java.util.function.Consumer;
import org.quartz.DisallowConcurrentExecution;
import org.quartz.Job;
import org.quartz.JobExecutionContext;
import org.quartz.JobExecutionException;

/**
 * Sweeps the kept keys for the freshness metrics ({@link FreshnessSweep}) and hands the report to
 * this replica's metrics. Runs on one replica per firing (clustered job store); every replica
 * exports the last report it made while it is recent, so the metrics' maximum over the replicas is
 * the latest sweep's.
 */
@DisallowConcurrentExecution
public final class FreshnessJob implements Job {

  private final FreshnessSweep sweep;
  private final Consumer<FreshnessSweep.Report> reports;

  public FreshnessJob(FreshnessSweep sweep, Consumer<FreshnessSweep.Report> reports) {
    this.sweep = sweep;
    this.reports = reports;
  }

  @Override
  public void execute(JobExecutionContext context) throws JobExecutionException {
    try {
      reports.accept(sweep.sweep());
    } catch (RuntimeException e) {
      // Not refired at once: the next firing sweeps again; the metrics go stale (NaN) meanwhile.
      throw new JobExecutionException("freshness sweep failed: " + e.getMessage(), e, false);
    }
  }
}
