package io.refresher.scheduling;

import io.refresher.access.HotKeyTracker;
import org.quartz.DisallowConcurrentExecution;
import org.quartz.Job;
import org.quartz.JobExecutionContext;
import org.quartz.JobExecutionException;

/**
 * Cluster-wide: samples the access counters and recomputes the hot set, on one replica per firing
 * (clustered job store), never concurrently.
 */
@DisallowConcurrentExecution
public final class SampleAccessJob implements Job {

  private final HotKeyTracker tracker;
  private final Runnable afterTick;

  public SampleAccessJob(HotKeyTracker tracker, Runnable afterTick) {
    this.tracker = tracker;
    this.afterTick = afterTick;
  }

  @Override
  public void execute(JobExecutionContext context) throws JobExecutionException {
    try {
      tracker.tick();
      afterTick.run();
    } catch (RuntimeException e) {
      // The next firing retries; unconsumed seconds stay in Redis for a minute.
      throw new JobExecutionException("access sampling failed: " + e.getMessage(), e, false);
    }
  }
}
