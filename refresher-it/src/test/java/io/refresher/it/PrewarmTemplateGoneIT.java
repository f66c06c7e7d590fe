package io.refresher.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;
import static org.awaitility.Awaitility.await;

import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.refresher.config.RefresherConfiguration;
import io.refresher.testing.AccessReporter;
import io.refresher.testing.RealServers;
import io.refresher.testing.TestApp;
import io.refresher.testing.TestDatabase;
import io.refresher.testing.TestRedis;
import jakarta.ws.rs.client.Entity;
import jakarta.ws.rs.core.Response;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Issue 18, point 2, on real processes: a refill whose keys can no longer be refreshed still ends.
 * 600 keys of the template {@code p:{id}} are made hot through the access counters of {@code
 * docs/protocol.md} and their popularity is saved; Redis is SIGKILLed and started again empty; the
 * refill at 20 queries/s would take 30 s, and 3 s into it the template is deleted. The refill must
 * finish (the keys nothing covers any more counted as skipped, with their reason), and a new
 * {@code POST /v1/prewarm} must be accepted (202).
 *
 * <p>Seen failing before the fix: 60 s after the delete {@code GET /v1/prewarm} still said
 * running, and every POST answered 409.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class PrewarmTemplateGoneIT {

  private static final int KEYS = 600;
  private static final int BOUND = 20;
  private static final double READS_PER_SECOND = 30;
  private static final double HOT_THRESHOLD = 5;

  private static final TestDatabase DATABASE = RealServers.newDatabase("prewarm_template_gone");
  private static final TestRedis REDIS = RealServers.newRedis();
  private static final TestApp APP =
      TestApp.on(
          "prewarm_template_gone", DATABASE, REDIS,
          "database.maxQueriesPerSecond", Integer.toString(BOUND),
          "database.maxWait", "30s",
          "refresh.lockLease", "40s", // the rate wait (maxWait 30 s) and a source timeout fit under it
          // Long enough that the saved rates are still hot a few seconds after the kill.
          "access.halfLife", "10s",
          "access.hotThreshold", Double.toString(HOT_THRESHOLD),
          "access.coldAfter", "1h",
          "access.sampleInterval", "250ms",
          "access.settle", "300ms",
          "access.snapshotInterval", "1s",
          "access.maxHotKeys", "10000",
          "scheduler.epochCheckInterval", "1s",
          "refresh.staleGrace", "1h");
  static final DropwizardAppExtension<RefresherConfiguration> EXTENSION = APP.extension();

  @Test
  void refillAfterLoss_templateDeletedMidway_refillFinishesAndANewPrewarmIsAccepted() {
    assumeThat(REDIS.supportsProcessFaults()).as("needs a Redis process to kill").isTrue();
    try (Response response = APP.putTemplate("pages", "{\"pattern\":\"p:{id}\",\"source\":\"stamped\",\"ttl\":\"PT1H\"}")) {
      assertThat(response.getStatus()).isEqualTo(201);
    }
    try (AccessReporter reads = new AccessReporter(REDIS)) {
      for (int i = 1; i <= KEYS; i++) {
        reads.read("p:" + i, READS_PER_SECOND);
      }
      await("the popularity of all 600 keys saved, each hot")
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(250))
          .until(() -> DATABASE.queryLong(
                  "SELECT count(*) FROM refresher.refresher_popularity WHERE key LIKE 'p:%' AND rate >= " + 2 * HOT_THRESHOLD)
              == KEYS);
      reads.stopAll();
    }
    long epochBefore = APP.parts().epochGuard().currentEpoch();

    REDIS.killAndRestartEmpty();

    await("the refill after the loss runs")
        .atMost(Duration.ofSeconds(20))
        .pollInterval(Duration.ofMillis(100))
        .ignoreExceptions()
        .until(() -> {
          Map<?, ?> status = prewarm();
          return "running".equals(status.get("state")) && ((Number) status.get("epoch")).longValue() > epochBefore;
        });
    Map<?, ?> started = prewarm();
    // A few refreshes claimed before the kill may write into the new Redis before the plan is made.
    long total = ((Number) started.get("total")).longValue();
    assertThat(total).as("keys planned").isBetween(KEYS - 20L, (long) KEYS);
    // About 3 s into the refill at 20 keys/s.
    await("the refill under way")
        .atMost(Duration.ofSeconds(20))
        .pollInterval(Duration.ofMillis(50))
        .until(() -> ((Number) prewarm().get("done")).intValue() >= 3 * BOUND);

    try (Response deleted = APP.authorized(APP.api("/v1/templates/pages")).delete()) {
      assertThat(deleted.getStatus()).isEqualTo(204);
    }
    Instant deletedAt = Instant.now();
    Map<?, ?> atDelete = prewarm();
    System.out.printf("prewarm at the template's deletion: %s%n", atDelete);

    try {
      await("the refill ends once nothing covers its keys")
          .atMost(Duration.ofSeconds(45))
          .pollInterval(Duration.ofMillis(100))
          .until(() -> "finished".equals(prewarm().get("state")));
    } finally {
      System.out.printf("prewarm %d ms after the template's deletion: %s%n",
          Duration.between(deletedAt, Instant.now()).toMillis(), prewarm());
    }
    System.out.printf("prewarm ended %d ms after the template's deletion%n", Duration.between(deletedAt, Instant.now()).toMillis());
    Map<?, ?> finished = prewarm();
    long done = ((Number) finished.get("done")).longValue();
    long skipped = ((Number) finished.get("skipped")).longValue();
    assertThat(done).as("keys back before the delete").isPositive();
    assertThat(done + skipped).as("every planned key done or skipped").isEqualTo(total);
    assertThat(((Number) finished.get("left")).longValue()).isZero();
    @SuppressWarnings("unchecked")
    Map<String, Object> reasons = (Map<String, Object>) finished.get("skippedByReason");
    assertThat(reasons.keySet()).as("reasons").contains("not-covered").isSubsetOf("not-covered", "registration-gone");
    assertThat(reasons.values().stream().mapToLong(n -> ((Number) n).longValue()).sum()).isEqualTo(skipped);

    try (Response again = APP.authorized(APP.api("/v1/prewarm")).post(Entity.json(""))) {
      assertThat(again.getStatus()).as("a new prewarm after the refill ended").isEqualTo(202);
    }
  }

  private static Map<?, ?> prewarm() {
    try (Response response = APP.authorized(APP.api("/v1/prewarm")).get()) {
      return (Map<?, ?>) response.readEntity(Map.class).get("prewarm");
    }
  }
}
