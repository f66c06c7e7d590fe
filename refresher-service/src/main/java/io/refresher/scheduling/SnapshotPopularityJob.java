package io.refresher.scheduling;

import io.refresher.access.PopularityKeeper;
import org.quartz.DisallowConcurrentExecution;
import org.quartz.Job;
import org.quartz.JobExecutionContext;
import org.quartz.JobExecutionException;

/** Cluster-wide: saves popularity to PostgreSQL, on one replica per firing. */
@DisallowConcurrentExecution
public final class SnapshotPopularityJob implements Job {

  private final PopularityKeeper keeper;

  public SnapshotPopularityJob(PopularityKeeper keeper) {
    this.keeper = keeper;
  }

  @Override
  public void execute(JobExecutionContext context) throws JobExecutionException {
    try {
      keeper.snapshot();
    } catch (RuntimeException e) {
      throw new JobExecutionException("popularity snapshot failed: " + e.getMessage(), e, false);
    }
  }
}
