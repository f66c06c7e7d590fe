package io.refresher.scheduling;

import java.time.InstantSource;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.refresher.embedded.EmbeddedPostgreSql;
import io.refresher.persistence.SchemaMigrator;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;
import org.quartz.Job;
import org.quartz.JobExecutionContext;

/**
 * A service that stops while PostgreSQL is down stops. Quartz records a job's completion in its
 * job store and retries that until the store is shut down, while {@code shutdown(true)} shuts the
 * store down only after every job has completed: a job that ended during an outage held the stop
 * for ever (a clean-clone run hung in {@code PostgresDownIT}'s teardown, main thread in
 * {@code SimpleThreadPool.shutdown}, the worker in {@code retryExecuteInNonManagedTXLock}).
 */
class QuartzShutdownIT {

  private static final CountDownLatch STARTED = new CountDownLatch(1);
  private static final CountDownLatch RELEASE = new CountDownLatch(1);

  private EmbeddedPostgreSql postgres;

  /** Runs until the test lets it finish. */
  public static final class HeldJob implements Job {
    @Override
    public void execute(JobExecutionContext context) {
      STARTED.countDown();
      try {
        RELEASE.await(60, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  @AfterEach
  void cleanUp() {
    RELEASE.countDown();
    if (postgres != null) {
      postgres.close();
    }
  }

  @Test
  void stop_whileTheJobStoreIsUnreachable_returnsWithinTheJobWait() throws Exception {
    postgres = EmbeddedPostgreSql.start();
    PGSimpleDataSource dataSource = new PGSimpleDataSource();
    dataSource.setUrl(postgres.createDatabase("quartz_shutdown"));
    dataSource.setUser(EmbeddedPostgreSql.USER);
    dataSource.setPassword(EmbeddedPostgreSql.PASSWORD);
    new SchemaMigrator(dataSource).migrate();
    dataSource.setCurrentSchema("refresher,public"); // where the migrations put Quartz's tables
    QuartzManager quartz = new QuartzManager("quartz-shutdown-it", dataSource, 1, Map.of(HeldJob.class, new HeldJob()), InstantSource.system());
    quartz.every("held", HeldJob.class, Duration.ofHours(1), Duration.ZERO);
    quartz.start();
    assertThat(STARTED.await(30, TimeUnit.SECONDS)).as("the job started").isTrue();

    postgres.close();
    RELEASE.countDown();
    CompletableFuture<Void> stop =
        CompletableFuture.runAsync(
            () -> {
              try {
                quartz.stop();
              } catch (Exception e) {
                throw new IllegalStateException(e);
              }
            });

    await("the scheduler stops with PostgreSQL down")
        .atMost(QuartzManager.JOB_WAIT.plusSeconds(10))
        .until(stop::isDone);
    assertThat(stop).isNotCompletedExceptionally();
    assertThat(quartz.isRunning()).isFalse();
  }
}
