package io.refresher.scheduling;

import java.time.InstantSource;
import java.util.Date;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import javax.sql.DataSource;
import org.quartz.Job;
import org.quartz.JobBuilder;
import org.quartz.JobDetail;
import org.quartz.JobKey;
import org.quartz.Scheduler;
import org.quartz.SchedulerException;
import org.quartz.SimpleScheduleBuilder;
import org.quartz.Trigger;
import org.quartz.TriggerBuilder;
import org.quartz.TriggerKey;
import org.quartz.impl.SchedulerRepository;
import org.quartz.impl.StdSchedulerFactory;
import org.quartz.simpl.SimpleJobFactory;
import org.quartz.spi.JobFactory;
import org.quartz.spi.TriggerFiredBundle;
import org.quartz.utils.DBConnectionManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Quartz scheduler, clustered on PostgreSQL, that runs the service's few cluster-wide periodic
 * jobs. Refreshes themselves do not go through Quartz triggers (see {@code docs/architecture.md}):
 * one trigger per key serialises on the job store's row lock at a few hundred firings per second.
 *
 * <p>Settings that matter, from Quartz's issue tracker: {@code PostgreSQLDelegate} (without it jobs
 * silently never fire), {@code isClustered=true} (else every replica fires every trigger), {@code
 * acquireTriggersWithinLock=true} (else triggers can fire twice), stable job keys, and a graceful
 * stop that is bounded (see {@link #stop()}).
 */
public final class QuartzManager {

  private static final Logger LOG = LoggerFactory.getLogger(QuartzManager.class);
  private static final String GROUP = "refresher";
  /** How long a stop waits for the jobs that run: each is a few Redis and PostgreSQL calls. */
  static final Duration JOB_WAIT = Duration.ofSeconds(10);

  private final Scheduler scheduler;
  private final Map<Class<? extends Job>, Job> jobs;
  private final InstantSource clock;

  /** @param clock this machine's: a job's first run is {@code firstDelay} from its now */
  public QuartzManager(
      String schedulerName, DataSource dataSource, int threads, Map<Class<? extends Job>, Job> jobs, InstantSource clock)
      throws SchedulerException {
    this.clock = clock;
    this.jobs = Map.copyOf(jobs);
    // Quartz looks data sources up by name in a JVM-wide registry; a unique name per instance keeps
    // several services in one JVM (tests) from sharing one pool.
    String dataSourceName = "refresher-" + UUID.randomUUID();
    DBConnectionManager.getInstance()
        .addConnectionProvider(dataSourceName, new HikariConnectionProvider(dataSource));
    Properties properties = new Properties();
    properties.setProperty("org.quartz.scheduler.instanceName", schedulerName);
    properties.setProperty("org.quartz.scheduler.instanceId", "AUTO");
    properties.setProperty("org.quartz.scheduler.skipUpdateCheck", "true");
    properties.setProperty("org.quartz.threadPool.threadCount", Integer.toString(threads));
    properties.setProperty("org.quartz.threadPool.threadNamePrefix", "quartz-worker");
    properties.setProperty("org.quartz.jobStore.class", "org.quartz.impl.jdbcjobstore.JobStoreTX");
    properties.setProperty(
        "org.quartz.jobStore.driverDelegateClass", "org.quartz.impl.jdbcjobstore.PostgreSQLDelegate");
    properties.setProperty("org.quartz.jobStore.dataSource", dataSourceName);
    properties.setProperty("org.quartz.jobStore.tablePrefix", "QRTZ_");
    properties.setProperty("org.quartz.jobStore.isClustered", "true");
    properties.setProperty("org.quartz.jobStore.clusterCheckinInterval", "5000");
    properties.setProperty("org.quartz.jobStore.acquireTriggersWithinLock", "true");
    properties.setProperty("org.quartz.jobStore.misfireThreshold", "30000");
    StdSchedulerFactory factory = new StdSchedulerFactory(properties);
    this.scheduler = factory.getScheduler();
    // The JVM-wide repository would hand this scheduler to the next service started in the same
    // JVM under the same name; each service owns its own.
    SchedulerRepository.getInstance().remove(schedulerName);
    scheduler.setJobFactory(new InstanceJobFactory(this.jobs));
  }

  /** Schedules a job to run every {@code interval} cluster-wide, replacing an older schedule. */
  public void every(String name, Class<? extends Job> type, Duration interval, Duration firstDelay)
      throws SchedulerException {
    JobDetail job = JobBuilder.newJob(type).withIdentity(name, GROUP).storeDurably().build();
    Trigger trigger =
        TriggerBuilder.newTrigger()
            .withIdentity(name, GROUP)
            .forJob(job)
            .startAt(Date.from(clock.instant().plus(firstDelay)))
            .withSchedule(
                SimpleScheduleBuilder.simpleSchedule()
                    .withIntervalInMilliseconds(interval.toMillis())
                    .repeatForever()
                    .withMisfireHandlingInstructionNextWithRemainingCount())
            .build();
    scheduler.addJob(job, true);
    TriggerKey key = trigger.getKey();
    if (scheduler.checkExists(key)) {
      scheduler.rescheduleJob(key, trigger);
    } else {
      scheduler.scheduleJob(trigger);
    }
  }

  public void triggerNow(String name) throws SchedulerException {
    scheduler.triggerJob(new JobKey(name, GROUP));
  }

  public void start() throws SchedulerException {
    scheduler.start();
    LOG.info("Quartz scheduler '{}' started, clustered on PostgreSQL", scheduler.getSchedulerName());
  }

  /**
   * Stops firing, lets the jobs that run finish (up to {@link #JOB_WAIT}), then shuts down without
   * waiting on the job store. Not {@code shutdown(true)}: Quartz records a job's completion in
   * PostgreSQL and retries that until the store is shut down, which {@code shutdown(true)} does
   * only after every job has completed, so a job that ended while PostgreSQL was down held the
   * stop for ever (QuartzShutdownIT).
   */
  public void stop() throws SchedulerException {
    scheduler.standby();
    long deadline = System.nanoTime() + JOB_WAIT.toNanos();
    while (!scheduler.getCurrentlyExecutingJobs().isEmpty() && System.nanoTime() < deadline) {
      try {
        Thread.sleep(50);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    int running = scheduler.getCurrentlyExecutingJobs().size();
    if (running > 0) {
      LOG.warn("Quartz scheduler '{}' stops with {} jobs still running after {} s", scheduler.getSchedulerName(), running, JOB_WAIT.toSeconds());
    }
    scheduler.shutdown(false);
  }

  public boolean isRunning() {
    try {
      return scheduler.isStarted() && !scheduler.isShutdown() && !scheduler.isInStandbyMode();
    } catch (SchedulerException e) {
      return false;
    }
  }

  /** Builds jobs from the instances the service wired, falling back to Quartz's default. */
  private static final class InstanceJobFactory implements JobFactory {
    private final Map<Class<? extends Job>, Job> jobs;
    private final SimpleJobFactory fallback = new SimpleJobFactory();

    InstanceJobFactory(Map<Class<? extends Job>, Job> jobs) {
      this.jobs = jobs;
    }

    @Override
    public Job newJob(TriggerFiredBundle bundle, Scheduler scheduler) throws SchedulerException {
      Job job = jobs.get(bundle.getJobDetail().getJobClass());
      return job != null ? job : fallback.newJob(bundle, scheduler);
    }
  }
}
