package io.refresher.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.refresher.config.RefresherConfiguration;
import io.refresher.testing.TestApp;
import jakarta.ws.rs.core.Response;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Issue 23, point 1, for SQL sources: a source with a batch form computes many keys with one query
 * ({@code WHERE id = ANY(:id)}), each key still written with its own lock and fence. Scheduled
 * refreshes of keys due within the source's window go together (their times are aligned on it);
 * a manual refresh of many keys is one query; a key whose row is missing and a key whose row is
 * bad each fail alone. Queries are counted by {@code pg_stat_statements}: each test has its own
 * source, whose single-key and batch queries read the table under aliases of their own.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class BatchSourcesIT {

  private static final Logger LOG = LoggerFactory.getLogger(BatchSourcesIT.class);
  private static final ObjectMapper JSON = new ObjectMapper();
  /** The manual test's source: its queries read the table as manual_single and manual_batch. */
  private static final String MANUAL = "product-manual";
  /** The scheduled test's source, as sched_single and sched_batch: the tests' counts stay apart. */
  private static final String SCHEDULED = "product-scheduled";
  /** The refill test's source, as refill_single and refill_batch. */
  private static final String REFILL = "product-refill";
  /** The change test's source, as changed_single and changed_batch, refreshed on NOTIFY. */
  private static final String CHANGED = "product-changed";
  private static final String CHANGED_CHANNEL = "batch_product_changed";

  /**
   * A batch source over batch_product whose two queries read it under the alias prefix, and differ
   * from the other source's by {@code condition}: pg_stat_statements tells statements apart by
   * their parse tree, not their aliases, and keeps the text of the first it saw.
   */
  private static List<String> source(String name, String alias, String condition) {
    return List.of(
        "sources." + name + ".sql", "SELECT id, name, price, ttl_seconds FROM batch_product " + alias + "_single WHERE id = :id" + condition,
        "sources." + name + ".params.id", "long",
        "sources." + name + ".result", "row",
        "sources." + name + ".timeout", "2s",
        "sources." + name + ".valueTtl.column", "ttl_seconds",
        "sources." + name + ".batch.sql", "SELECT id, name, price, ttl_seconds FROM batch_product " + alias + "_batch WHERE id = ANY(:id)" + condition,
        "sources." + name + ".batch.keyColumn", "id",
        "sources." + name + ".batch.maxBatch", "500",
        "sources." + name + ".batch.window", "1s");
  }

  private static String[] overrides() {
    List<String> all = new ArrayList<>(source(MANUAL, "manual", ""));
    all.addAll(source(SCHEDULED, "sched", " AND price >= 0"));
    all.addAll(source(REFILL, "refill", " AND name IS NOT NULL"));
    all.addAll(source(CHANGED, "changed", " AND id > 0"));
    all.addAll(List.of(
        "sources." + CHANGED + ".changes.channel", CHANGED_CHANNEL,
        "sources." + CHANGED + ".changes.payload", "key"));
    // a failed key is retried 15 to 30 s later: no retry of the manual test's failing keys runs,
    // or holds their locks, while that test counts queries
    all.addAll(List.of("refresh.retryBase", "30s", "refresh.retryMax", "1m"));
    return all.toArray(String[]::new);
  }

  private static final TestApp APP =
      TestApp.create(
          "batch_sources",
          List.of(
              "CREATE TABLE batch_product (id bigint PRIMARY KEY, name text NOT NULL, price numeric NOT NULL, ttl_seconds text)",
              "INSERT INTO batch_product SELECT g, 'p' || g, g * 1.5, NULL FROM generate_series(1, 1000) g",
              // a row the source cannot read: its TTL column holds no number of seconds
              "UPDATE batch_product SET ttl_seconds = 'soon' WHERE id = 999"),
          overrides());

  static final DropwizardAppExtension<RefresherConfiguration> EXTENSION = APP.extension();

  @Test
  @Order(1)
  void manualRefreshOfManyKeys_oneQuery_missingRowAndBadRowFailAlone() throws Exception {
    List<String> keys = new ArrayList<>();
    for (int id = 1; id <= 20; id++) {
      register("manual:" + id, MANUAL, id, "PT1M");
      keys.add("manual:" + id);
    }
    register("manual:bad", MANUAL, 999, "PT1M");
    register("manual:missing", MANUAL, 5000, "PT1M");
    keys.add("manual:bad");
    keys.add("manual:missing");
    await("the registrations' first refreshes")
        .atMost(Duration.ofSeconds(30))
        .until(() -> IntStream.rangeClosed(1, 20).allMatch(id -> APP.get("manual:" + id) != null)
            && failures("manual:bad") > 0 && failures("manual:missing") > 0);
    long batchesBefore = APP.database().executionsOf("manual_batch");
    long singlesBefore = APP.database().executionsOf("manual_single");

    Map<String, JsonNode> byKey = HotKeyApps.refreshByKey(APP, keys);
    for (int id = 1; id <= 20; id++) {
      assertThat(byKey.get("manual:" + id).get("outcome").asText()).as("manual:%d", id).isEqualTo("refreshed");
    }
    assertThat(byKey.get("manual:bad").get("outcome").asText()).isEqualTo("failed");
    assertThat(byKey.get("manual:bad").get("error").asText()).contains("TTL column 'ttl_seconds' is not a number of seconds");
    assertThat(byKey.get("manual:missing").get("outcome").asText()).isEqualTo("failed");
    assertThat(byKey.get("manual:missing").get("errorKind").asText()).isEqualTo("NO_VALUE");
    assertThat(APP.database().executionsOf("manual_batch") - batchesBefore).as("batch queries for 22 keys").isEqualTo(1);
    assertThat(APP.database().executionsOf("manual_single") - singlesBefore).as("single-key queries").isZero();
    assertThat(JSON.readTree(APP.get("manual:7")).get("name").asText()).as("a key's value: its own row").isEqualTo("p7");
    assertThat(prometheus("refresher_batch_keys_sum{source=\"" + MANUAL + "\"}")).as("keys of the manual source's batch queries").isEqualTo(22);
    assertThat(prometheus("refresher_redis_lock_requests_total")).as("lock script calls, served").isPositive();
  }

  /** A sample's value on the admin port's {@code /metrics/prometheus}; -1 when it is not there. */
  private static double prometheus(String series) throws Exception {
    java.net.http.HttpResponse<String> response =
        java.net.http.HttpClient.newHttpClient()
            .send(
                java.net.http.HttpRequest.newBuilder(
                        java.net.URI.create("http://127.0.0.1:" + EXTENSION.getAdminPort() + "/metrics/prometheus"))
                    .build(),
                java.net.http.HttpResponse.BodyHandlers.ofString());
    for (String line : response.body().split("\n")) {
      if (line.startsWith(series + " ")) {
        return Double.parseDouble(line.substring(series.length() + 1).trim().split(" ")[0]);
      }
    }
    return -1;
  }

  @Test
  @Order(2)
  void scheduledRefreshesOfManyKeys_aQueryPerFiftyKeysAtMost() {
    int keys = 500;
    for (int id = 1; id <= keys; id++) {
      register("scheduled:" + id, SCHEDULED, id, "PT4S");
    }
    // The first refreshes run as the keys are registered, one by one; each plans its key's next
    // refresh on the window's grid, so from then on keys of one window go together.
    await("every key computed")
        .atMost(Duration.ofSeconds(60))
        .until(() -> IntStream.rangeClosed(1, keys).allMatch(id -> APP.get("scheduled:" + id) != null));
    long queriesBefore = queries();
    long refreshedBefore = refreshed();

    await("two more cycles of every key")
        .atMost(Duration.ofSeconds(60))
        .until(() -> refreshed() - refreshedBefore >= 2L * keys);

    long queries = queries() - queriesBefore;
    long refreshedKeys = refreshed() - refreshedBefore;
    LOG.info("{} scheduled refreshes of one batch source took {} source queries ({} per key)", refreshedKeys, queries, (double) queries / refreshedKeys);
    assertThat((double) queries / refreshedKeys).as("source queries per refreshed key (%d for %d)", queries, refreshedKeys).isLessThanOrEqualTo(0.02);
    assertThat(IntStream.rangeClosed(1, keys).filter(id -> failures("scheduled:" + id) > 0).boxed().toList())
        .as("keys whose refreshes fail")
        .isEmpty();
  }

  /**
   * Changed keys of a batch source go together: a key that comes while its source's query runs
   * waits for it and goes with the others that came meanwhile (a lone change waits for nothing).
   */
  @Test
  @Order(3)
  void changesOfManyKeys_refreshedTogether() {
    int keys = 200;
    for (int id = 1; id <= keys; id++) {
      register("changed:" + id, CHANGED, id, "PT10M");
    }
    await("every key computed")
        .atMost(Duration.ofSeconds(60))
        .until(() -> IntStream.rangeClosed(1, keys).allMatch(id -> APP.get("changed:" + id) != null));
    long queriesBefore = APP.database().executionsOf("changed_batch") + APP.database().executionsOf("changed_single");

    // one statement: the rows change, and a notification per key is sent at its commit
    APP.database().execute(
        "WITH changed AS (UPDATE batch_product SET name = 'changed-' || id WHERE id <= " + keys + " RETURNING id) "
            + "SELECT pg_notify('" + CHANGED_CHANNEL + "', 'changed:' || id) FROM changed");

    await("every key's new value")
        .atMost(Duration.ofSeconds(30))
        .until(() -> IntStream.rangeClosed(1, keys)
            .allMatch(id -> String.valueOf(APP.get("changed:" + id)).contains("\"changed-" + id + "\"")));
    long queries = APP.database().executionsOf("changed_batch") + APP.database().executionsOf("changed_single") - queriesBefore;
    LOG.info("the changes of {} keys of one batch source took {} source queries", keys, queries);
    // the first change goes alone; those that arrive while its query runs gather behind it (the
    // change threads take them one by one, and each query takes what gathered meanwhile)
    assertThat(queries).as("source queries for the changes of %d keys", keys).isLessThanOrEqualTo(keys / 10);
  }

  /** Last: Redis loses its data, which every key of the class has to come back from. */
  @Test
  @Order(4)
  void refillAfterADataLoss_aQueryPerBatch() {
    int keys = 300;
    for (int id = 1; id <= keys; id++) {
      register("refill:" + id, REFILL, id, "PT1M");
    }
    await("every key computed")
        .atMost(Duration.ofSeconds(60))
        .until(() -> IntStream.rangeClosed(1, keys).allMatch(id -> APP.get("refill:" + id) != null));
    long queriesBefore = APP.database().executionsOf("refill_batch") + APP.database().executionsOf("refill_single");
    long epochBefore = APP.parts().epochGuard().currentEpoch();

    APP.redis().loseData();

    await("every key back in Redis, refilled")
        .atMost(Duration.ofSeconds(60))
        .ignoreExceptions()
        .until(() -> IntStream.rangeClosed(1, keys).allMatch(id -> APP.get("refill:" + id) != null));
    assertThat(APP.parts().epochGuard().currentEpoch()).isGreaterThan(epochBefore);
    long queries = APP.database().executionsOf("refill_batch") + APP.database().executionsOf("refill_single") - queriesBefore;
    LOG.info("a refill of {} keys of one batch source took {} source queries", keys, queries);
    // One batch of 300 (seen: 1 query); a claim tick that falls between two pages of the refill's
    // plan, as it is written to the due index, may split it.
    assertThat(queries).as("source queries for the refill of %d keys (500 per batch)", keys).isLessThanOrEqualTo(3);
  }

  private static long queries() {
    return APP.database().executionsOf("sched_batch") + APP.database().executionsOf("sched_single");
  }

  private static void register(String key, String source, long id, String ttl) {
    try (Response response =
        APP.putKey(key, "{\"source\":\"" + source + "\",\"params\":{\"id\":" + id + "},\"ttl\":\"" + ttl + "\",\"policy\":\"always\"}")) {
      assertThat(response.getStatus()).as("registering %s", key).isEqualTo(201);
    }
  }

  /** The key's failures in a row, from its status. */
  private static int failures(String key) {
    JsonNode status = HotKeyApps.status(APP, key);
    return status == null ? 0 : status.path("consecutiveFailures").asInt();
  }


  private static long refreshed() {
    return EXTENSION.getEnvironment().metrics().meter("refresher.source." + SCHEDULED + ".refreshed").getCount();
  }
}
