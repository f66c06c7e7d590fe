package io.refresher.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.codahale.metrics.Meter;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.refresher.client.RefresherClient;
import io.refresher.config.RefresherConfiguration;
import io.refresher.prewarm.Prewarmer;
import io.refresher.testing.RealServers;
import io.refresher.testing.TestApp;
import io.refresher.testing.TestDatabase;
import io.refresher.testing.TestRedis;
import jakarta.ws.rs.core.Response;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.slf4j.LoggerFactory;

/**
 * A storm: Redis is killed (SIGKILL) and started again empty while 2,000 template keys have a
 * popularity history (Zipf: rank r reads 5,000 / r per second) and their datasource is bounded to
 * 200 queries/s. Two replicas share the refill (StormRefillSingleReplicaIT: one). Counted by the database's own clock (the source
 * stamps {@code clock_timestamp()} into each value) and by pg_stat_statements:
 *
 * <ul>
 *   <li>the 100 hottest keys are back within 2 s of Redis accepting connections, all 2,000 within
 *       2,000 / 200 + 2 s;
 *   <li>no more than 200 source queries in any one-second window, for both replicas together, and
 *       each key computed exactly once;
 *   <li>each replica did part of the work;
 *   <li>readers through {@link RefresherClient} see every key of the top 10% back before any key
 *       of the bottom 50%;
 *   <li>{@code hot} keys registered moments before the loss (inside their grace, never read) are
 *       refilled too;
 *   <li>{@code GET /v1/prewarm} reports what the test saw; the start and end log lines exist.
 * </ul>
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class StormRefillSingleReplicaIT {

  private static final TestDatabase DATABASE = RealServers.newDatabase("storm_refill_single");
  private static final TestRedis REDIS = RealServers.newRedis();
  private static final TestApp APP = TestApp.on("storm_refill_single", DATABASE, REDIS, StormScenario.OVERRIDES);
  static final DropwizardAppExtension<RefresherConfiguration> EXTENSION = APP.extension();

  private static ListAppender<ILoggingEvent> PREWARM_LOG;

  /** After the service started: each start configures logging afresh, dropping appenders. */
  @BeforeAll
  static void captureLog() {
    PREWARM_LOG = StormScenario.capturePrewarmLog();
  }

  @AfterAll
  static void detachLog() {
    StormScenario.releasePrewarmLog(PREWARM_LOG);
  }

  @Test
  void redisKilledAndStartedEmpty_hottestFirstWithinTheBound_oneReplica() throws Exception {
    StormScenario.run(List.of(APP), REDIS, DATABASE, PREWARM_LOG);
  }
}
