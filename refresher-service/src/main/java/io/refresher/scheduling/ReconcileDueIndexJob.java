package io.refresher.scheduling;

import io.refresher.refresh.DueIndexReconciler;
import org.quartz.DisallowConcurrentExecution;
import org.quartz.Job;
import org.quartz.JobExecutionContext;
import org.quartz.JobExecutionException;

/**
 * Cluster-wide periodic sweep that puts every registered key back into the due index if it is
 * missing there. Runs on one replica per firing (clustered job store); never concurrently.
 */
@DisallowConcurrentExecution
public final class ReconcileDueIndexJob implements Job {

  private final DueIndexReconciler reconciler;

  public ReconcileDueIndexJob(DueIndexReconciler reconciler) {
    this.reconciler = reconciler;
  }

  @Override
  public void execute(JobExecutionContext context) throws JobExecutionException {
    try {
      reconciler.reconcile();
    } catch (RuntimeException e) {
      // Not refired at once: the next firing retries, and a failure here loses nothing.
      throw new JobExecutionException("due index sweep failed: " + e.getMessage(), e, false);
    }
  }
}
