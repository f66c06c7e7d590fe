package io.refresher.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.refresher.config.RefresherConfiguration;
import io.refresher.persistence.SchemaMigrator;
import io.refresher.testing.RealServers;
import io.refresher.testing.TestApp;
import io.refresher.testing.TestDatabase;
import jakarta.ws.rs.core.Response;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The first start against an empty Redis with a known history (a new Redis behind an existing
 * registry, or every replica restarted after Redis lost its data while none ran): the same refill
 * as after a loss, the most popular keys first, at the bound.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class FirstStartPrewarmIT {

  private static final int KEYS = 30;
  private static final int BOUND = 20;
  private static final TestDatabase DATABASE = withHistory();
  private static final TestApp APP =
      TestApp.on(
          "first_start_prewarm", DATABASE, RealServers.newRedis(),
          "database.maxQueriesPerSecond", Integer.toString(BOUND),
          "refresh.lockLease", "15s", // the rate wait (maxWait 10 s) and a source's timeout fit under it
          "access.halfLife", "1h");
  static final DropwizardAppExtension<RefresherConfiguration> EXTENSION = APP.extension();

  /** The registry and its popularity history exist before the service first starts. */
  private static TestDatabase withHistory() {
    TestDatabase database = RealServers.newDatabase("first_start_prewarm");
    PGSimpleDataSource dataSource = new PGSimpleDataSource();
    dataSource.setUrl(database.url());
    dataSource.setUser(database.user());
    dataSource.setPassword(database.password());
    new SchemaMigrator(dataSource).migrate();
    database.execute(
        // hot keys registered long ago (outside their grace): only their popularity brings them back
        "INSERT INTO refresher.refresher_key (key, source, params, ttl_ms, policy, created_at, updated_at) "
            + "SELECT 'known:' || i, 'stamped', jsonb_build_object('id', i), 3600000, 'hot', now() - interval '1 day', now() - interval '1 day' "
            + "FROM generate_series(1, " + KEYS + ") AS i",
        // rank i reads 1000 / i per second
        "INSERT INTO refresher.refresher_popularity (key, rate, sampled_at) "
            + "SELECT 'known:' || i, 1000.0 / i, now() FROM generate_series(1, " + KEYS + ") AS i");
    return database;
  }

  /** When the database computed the value (the source stamps its clock into it). */
  private static Instant computedAt(String key) {
    return Instant.parse(APP.get(key).split("\\|")[0]);
  }

  @Test
  void firstStartOnEmptyRedis_knownHistory_refilledHottestFirstAtTheBound() {
    await("every known popular key is back")
        .atMost(Duration.ofSeconds(30))
        .ignoreExceptions()
        .until(() -> {
          for (int i = 1; i <= KEYS; i++) {
            if (APP.get("known:" + i) == null) {
              return false;
            }
          }
          return true;
        });
    List<Instant> hottest = new ArrayList<>();
    List<Instant> coolest = new ArrayList<>();
    Instant first = Instant.MAX;
    Instant last = Instant.MIN;
    for (int i = 1; i <= KEYS; i++) {
      Instant computed = computedAt("known:" + i);
      first = computed.isBefore(first) ? computed : first;
      last = computed.isAfter(last) ? computed : last;
      if (i <= KEYS / 3) {
        hottest.add(computed);
      } else if (i > KEYS * 2 / 3) {
        coolest.add(computed);
      }
    }
    List<Integer> ranksInComputedOrder = new ArrayList<>();
    for (int i = 1; i <= KEYS; i++) {
      ranksInComputedOrder.add(i);
    }
    ranksInComputedOrder.sort(java.util.Comparator.comparing(rank -> computedAt("known:" + rank)));
    org.slf4j.LoggerFactory.getLogger(FirstStartPrewarmIT.class).info("ranks in the order they were computed: {}", ranksInComputedOrder);
    // Hottest first is the order of the due times and of the claims (docs/prewarm.md, "Order and
    // pace"); the waits for the rate limiter's permits keep it, since one replica's waiters take
    // turns. Keys let through together run at once, so neighbours may swap: measured (4 runs),
    // no key more than two places from its rank. Before the turns, one or two keys per run
    // waited up to 1.16 s while cooler ones passed them.
    assertThat(median(hottest)).as("the hottest third computed before the coolest third (medians; hottest %s, coolest %s)", hottest, coolest)
        .isBefore(median(coolest));
    assertThat(Collections.max(hottest)).as("every key of the hottest third computed before the last of the coolest")
        .isBefore(Collections.max(coolest));
    assertThat(Duration.between(first, last).toMillis())
        .as("%d keys at %d/s take at least %d ms", KEYS, BOUND, (KEYS - BOUND) * 1000L / BOUND)
        .isGreaterThanOrEqualTo((KEYS - BOUND) * 1000L / BOUND);
    await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
      try (Response response = APP.authorized(APP.api("/v1/prewarm")).get()) {
        Map<?, ?> status = (Map<?, ?>) response.readEntity(Map.class).get("prewarm");
        assertThat(status.get("trigger")).isEqualTo("data-loss");
        assertThat(status.get("state")).isEqualTo("finished");
        assertThat(((Number) status.get("done")).intValue()).isEqualTo(KEYS);
      }
    });
  }

  private static Instant median(List<Instant> instants) {
    List<Instant> sorted = new ArrayList<>(instants);
    Collections.sort(sorted);
    return sorted.get(sorted.size() / 2);
  }
}
