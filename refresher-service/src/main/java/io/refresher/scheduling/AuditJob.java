package io.refresher.scheduling;

import io.refresher.refresh.audit.ConsistencyAudit;
import org.quartz.DisallowConcurrentExecution;
import org.quartz.Job;
import org.quartz.JobExecutionContext;
import org.quartz.JobExecutionException;

/**
 * One round of the consistency audit ({@link ConsistencyAudit}): on one replica per firing
 * (clustered job store), so that the datasources' audit rates hold for the replicas together.
 */
@DisallowConcurrentExecution
public final class AuditJob implements Job {

  private final ConsistencyAudit audit;

  public AuditJob(ConsistencyAudit audit) {
    this.audit = audit;
  }

  @Override
  public void execute(JobExecutionContext context) throws JobExecutionException {
    try {
      audit.round();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException e) {
      // Not refired at once: the next firing samples again.
      throw new JobExecutionException("consistency audit round failed: " + e.getMessage(), e, false);
    }
  }
}
