package io.refresher.scheduling;

import io.refresher.access.HotKeyTracker;
import java.util.concurrent.atomic.AtomicInteger;
import org.quartz.DisallowConcurrentExecution;
import org.quartz.Job;
import org.quartz.JobExecutionContext;
import org.quartz.JobExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Cluster-wide: samples the access counters and recomputes the hot set, on one replica per firing
 * (clustered job store), never concurrently.
 *
 * <p>A failed sampling loses nothing: unconsumed seconds stay in Redis for a minute and the hot set
 * is left as it was (keys keep being refreshed). The first failure of a streak is logged at WARN,
 * the recovery at INFO.
 */
@DisallowConcurrentExecution
public final class SampleAccessJob implements Job {

  private static final Logger LOG = LoggerFactory.getLogger(SampleAccessJob.class);

  private final HotKeyTracker tracker;
  private final Runnable afterTick;
  private final AtomicInteger failures = new AtomicInteger();

  public SampleAccessJob(HotKeyTracker tracker, Runnable afterTick) {
    this.tracker = tracker;
    this.afterTick = afterTick;
  }

  @Override
  public void execute(JobExecutionContext context) throws JobExecutionException {
    try {
      tracker.tick();
      afterTick.run();
      int failed = failures.getAndSet(0);
      if (failed > 0) {
        LOG.info("access sampling recovered after {} failed runs", failed);
      }
    } catch (RuntimeException e) {
      if (failures.incrementAndGet() == 1) {
        LOG.warn("access sampling failed ({}); the hot set is left as it is until it works again", e.toString(), e);
      }
      throw new JobExecutionException("access sampling failed: " + e.getMessage(), e, false);
    }
  }
}
