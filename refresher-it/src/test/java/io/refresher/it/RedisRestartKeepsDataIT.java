package io.refresher.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.refresher.access.PopularityKeeper;
import io.refresher.config.RefresherConfiguration;
import io.refresher.prewarm.Prewarmer;
import io.refresher.testing.RealServers;
import io.refresher.testing.TestApp;
import io.refresher.testing.TestDatabase;
import io.refresher.testing.TestRedis;
import jakarta.ws.rs.core.Response;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.slf4j.LoggerFactory;

/**
 * Redis restarts with its data (saved to disk and reloaded), then is unreachable for 3 s (frozen)
 * and answers again: nothing was lost, so nothing is recomputed. On both replicas: no refill, no popularity restore, no new epoch, and not one source
 * run for the keys, whose values survived.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class RedisRestartKeepsDataIT {

  private static final int KEYS = 20;
  private static final TestDatabase DATABASE = RealServers.newDatabase("redis_restart_data");
  private static final TestRedis REDIS = RealServers.newPersistentRedis();
  private static final TestApp APP = TestApp.on("redis_restart_data", DATABASE, REDIS);
  private static final TestApp REPLICA = TestApp.replicaOf(APP, "redis_restart_data_2");
  static final DropwizardAppExtension<RefresherConfiguration> EXTENSION = APP.extension();
  static final DropwizardAppExtension<RefresherConfiguration> REPLICA_EXTENSION = REPLICA.extension();

  private static final ListAppender<ILoggingEvent> LOG = new ListAppender<>();

  @BeforeAll
  static void captureLog() {
    LOG.start();
    ((Logger) LoggerFactory.getLogger(Prewarmer.class)).addAppender(LOG);
    ((Logger) LoggerFactory.getLogger(PopularityKeeper.class)).addAppender(LOG);
  }

  @AfterAll
  static void detachLog() {
    ((Logger) LoggerFactory.getLogger(Prewarmer.class)).detachAppender(LOG);
    ((Logger) LoggerFactory.getLogger(PopularityKeeper.class)).detachAppender(LOG);
  }

  @Test
  void redisRestartsWithItsDataAndIsUnreachableFor3s_noRecoveryAndNoSourceRun() {
    assumeThat(REDIS.supportsProcessFaults()).as("needs a Redis process to restart").isTrue();
    for (int i = 1; i <= KEYS; i++) {
      try (Response response =
          APP.putKey("kept:" + i, "{\"source\":\"stamped\",\"params\":{\"id\":" + i + "},\"ttl\":\"PT1H\",\"policy\":\"always\"}")) {
        assertThat(response.getStatus()).isEqualTo(201);
      }
    }
    DATABASE.execute(
        "INSERT INTO refresher.refresher_popularity (key, rate, sampled_at) "
            + "SELECT 'kept:' || i, 100, now() FROM generate_series(1, " + KEYS + ") AS i");
    long runsBefore = DATABASE.executionsOf("stamped_source");
    long epoch = APP.parts().epochGuard().currentEpoch();
    long lossesBefore = losses(APP) + losses(REPLICA);
    long refillsBefore = refills(APP) + refills(REPLICA);
    LOG.list.clear();

    REDIS.restartKeepingData();
    // And merely unreachable for a while (every command times out), then back with its data.
    REDIS.freeze();
    try {
      long frozenAt = System.currentTimeMillis();
      await("Redis unreachable for 3 s")
          .atMost(Duration.ofSeconds(10))
          .pollInterval(Duration.ofMillis(100))
          .until(() -> System.currentTimeMillis() - frozenAt >= 3000);
    } finally {
      REDIS.thaw();
    }

    // Several epoch checks on both replicas (every second), with Redis answering all along.
    await("Redis serves the values for 4 s after the outages")
        .during(Duration.ofSeconds(4))
        .atMost(Duration.ofSeconds(30))
        .ignoreExceptions()
        .until(() -> APP.get("kept:1") != null && REPLICA.parts().epochGuard().currentEpoch() == epoch);

    assertThat(DATABASE.executionsOf("stamped_source") - runsBefore).as("source runs after the restart").isZero();
    assertThat(APP.parts().epochGuard().currentEpoch()).isEqualTo(epoch);
    assertThat(REPLICA.parts().epochGuard().currentEpoch()).isEqualTo(epoch);
    assertThat(losses(APP) + losses(REPLICA)).as("data losses handled").isEqualTo(lossesBefore);
    assertThat(refills(APP) + refills(REPLICA)).as("refills led").isEqualTo(refillsBefore);
    List<String> lines = LOG.list.stream().map(ILoggingEvent::getFormattedMessage).toList();
    assertThat(lines).noneMatch(line -> line.startsWith("popularity restored"));
    assertThat(lines).noneMatch(line -> line.startsWith("prewarm started"));
    for (int i = 1; i <= KEYS; i++) {
      assertThat(APP.get("kept:" + i)).as("kept:%s", i).isNotNull();
    }
  }

  private static long losses(TestApp app) {
    return counter(app, "refresher.redis.data-losses");
  }

  private static long refills(TestApp app) {
    return counter(app, "refresher.prewarm.runs");
  }

  private static long counter(TestApp app, String name) {
    return app.extension().getEnvironment().metrics().getCounters().get(name).getCount();
  }
}
