package io.refresher.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.codahale.metrics.Counter;
import com.codahale.metrics.Gauge;
import com.codahale.metrics.MetricRegistry;
import io.refresher.changes.LeaderLock;
import io.refresher.wiring.ListeningConnections;
import io.refresher.registry.KeyTemplate;
import io.refresher.testing.AccessReporter;
import io.refresher.testing.TestApp;
import jakarta.ws.rs.core.Response;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.redisson.client.codec.StringCodec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Refresh on change, end to end: rows changed through the triggers of {@code docs/sources.md}
 * (read from the file and run as written), two replicas on one Redis and one PostgreSQL, one of
 * them listening.
 *
 * <p>One pair of replicas serves every scenario, in order; the failover (which stops a replica)
 * comes last. TTLs are ten minutes, so no scheduled refresh runs during the class: every source run
 * counted is a change's.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ChangeNotificationsIT {

  private static final Logger LOG = LoggerFactory.getLogger(ChangeNotificationsIT.class);
  private static final Duration WINDOW = Duration.ofMillis(50);
  private static final String TTL = "PT10M";

  /** The documentation the triggers come from (merged into docs/sources.md, or on its own). */
  private static final List<Path> DOCS = List.of(Path.of("..", "docs", "sources.md"));

  private static final List<String> SET_UP =
      List.of(
          "CREATE TABLE product (id bigint PRIMARY KEY, name text NOT NULL, version int NOT NULL DEFAULT 0)",
          "INSERT INTO product (id, name) SELECT g, 'p' || g FROM generate_series(1, 10) g",
          "CREATE TABLE product_variant (product_id bigint, color text, stock int NOT NULL, PRIMARY KEY (product_id, color))",
          "INSERT INTO product_variant VALUES (10, 'red', 1), (10, 'blue', 1), (11, 'green', 1)",
          documentedSql("key-trigger"),
          documentedSql("fields-trigger"));

  private static final String[] OVERRIDES = {
    // product:{id} keys, refreshed through the documented key trigger
    "sources.product-a.sql", "SELECT name || ':' || version AS product_a_source FROM product WHERE id = :id",
    "sources.product-a.timeout", "2s", // below refresh.lockLease (5 s): SourceLeaseCheck
    "sources.product-a.params.id", "long",
    "sources.product-a.result", "scalar",
    "sources.product-a.changes.channel", "product_changed",
    "sources.product-a.changes.payload", "key",
    // the burst's key: its own source, so that its runs are counted apart (pg_stat_statements tells
    // statements apart by their parse tree, not their aliases: this one has another condition)
    "sources.product-burst.sql",
        "SELECT name || ':' || version AS product_burst_source FROM product WHERE id = :id AND name IS NOT NULL",
    "sources.product-burst.timeout", "2s", // below refresh.lockLease (5 s): SourceLeaseCheck
    "sources.product-burst.params.id", "long",
    "sources.product-burst.result", "scalar",
    // variant:{product}:{color} keys, through the documented fields trigger
    "sources.variant-by-product-and-color.sql",
        "SELECT color || ':' || stock AS variant_source FROM product_variant WHERE product_id = :product AND color = :color",
    "sources.variant-by-product-and-color.timeout", "2s", // below refresh.lockLease (5 s): SourceLeaseCheck
    "sources.variant-by-product-and-color.params.product", "long",
    "sources.variant-by-product-and-color.params.color", "string",
    "sources.variant-by-product-and-color.result", "scalar",
    "sources.variant-by-product-and-color.changes.channel", "product_variant_changed",
    "sources.variant-by-product-and-color.changes.payload", "fields",
    "changes.coalesceWindow", WINDOW.toMillis() + "ms",
    "changes.reconnectDelay", "500ms",
  };

  private static TestApp first;
  private static TestApp second;
  private static final java.util.Set<TestApp> STOPPED = java.util.concurrent.ConcurrentHashMap.newKeySet();
  private static Connection writer;

  @BeforeAll
  static void startReplicas() throws SQLException {
    first = TestApp.create("change_notifications", SET_UP, OVERRIDES);
    second = TestApp.replicaOf(first, "change-notifications-second", OVERRIDES);
    try {
      first.extension().before();
      second.extension().before();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
    writer = first.database().connect();
    writer.setAutoCommit(true);
    await("one replica listens, the other stands by")
        .atMost(Duration.ofSeconds(10))
        .until(() -> listening(first) + listening(second) == 1);
  }

  @AfterAll
  static void stopReplicas() throws SQLException {
    if (writer != null) {
      writer.close();
    }
    for (TestApp app : List.of(second, first)) {
      if (STOPPED.add(app)) {
        app.extension().after();
      }
    }
  }

  /**
   * (a) A hot key's row updated 100 times: every new value is in Redis, 95 of 100 within 250 ms of
   * the commit, and the key is never absent. The p99 is logged, not asserted: a clean-clone run saw
   * one pause of the whole machine make two consecutive samples 282 and 310 ms (p50 19 ms), and a
   * bound one sample can break measures the machine, not the listener.
   */
  @Test
  @Order(1)
  void hotKey_rowUpdatedHundredTimes_newValueInRedisWithinMilliseconds_neverAbsent() throws Exception {
    String key = "product:1";
    register(first, key, "product-a", "{\"id\":1}");
    assertThat(first.get(key)).isEqualTo("p1:0");

    AtomicLong polls = new AtomicLong();
    AtomicLong absent = new AtomicLong();
    ScheduledExecutorService poller = Executors.newSingleThreadScheduledExecutor();
    poller.scheduleWithFixedDelay(
        () -> {
          polls.incrementAndGet();
          if (first.get(key) == null) {
            absent.incrementAndGet();
          }
        },
        0,
        2,
        TimeUnit.MILLISECONDS);
    List<Long> latencies = new ArrayList<>();
    try {
      for (int version = 1; version <= 100; version++) {
        latencies.add(updateAndAwait(first, "UPDATE product SET version = version + 1 WHERE id = 1", key, "p1:" + version));
        LockSupport.parkNanos(Duration.ofMillis(30).toNanos());
      }
    } finally {
      poller.shutdownNow();
    }
    assertThat(poller.awaitTermination(5, TimeUnit.SECONDS)).isTrue();

    List<Long> sorted = new ArrayList<>(latencies);
    Collections.sort(sorted);
    long p50 = percentile(sorted, 50);
    long p95 = percentile(sorted, 95);
    long p99 = percentile(sorted, 99);
    LOG.info(
        "(a) commit to value in Redis over {} updates: p50 {} ms, p95 {} ms, p99 {} ms, max {} ms; {} polls of the key, {} absent",
        sorted.size(),
        p50,
        p95,
        p99,
        sorted.get(sorted.size() - 1),
        polls.get(),
        absent.get());
    assertThat(latencies).as("every update reached Redis (-1: not within 5 s)").doesNotContain(-1L);
    assertThat(p95).as("p95 commit-to-visible, ms (p50 %d, all %s)", p50, latencies).isLessThanOrEqualTo(250);
    assertThat(absent.get()).as("polls that found the hot key absent (a change refreshes, never deletes)").isZero();
    assertThat(polls.get()).isGreaterThan(500);
  }

  /** (b) 1,000 notifications for one key within a second: the source runs at most 1 s / window + 1 times, and the last change is in. */
  @Test
  @Order(2)
  void burst_thousandChangesOfOneRowWithinASecond_sourceRunsAtMostOncePerWindowPlusOne() throws Exception {
    String key = "product:2";
    register(first, key, "product-burst", "{\"id\":2}");
    long before = first.database().executionsOf("product_burst_source");
    long receivedBefore = counter("refresher.changes.received");
    long coalescedBefore = counter("refresher.changes.coalesced");

    long started = System.nanoTime();
    try (Statement statement = writer.createStatement()) {
      // each update its own transaction, each a notification: commits need not wait for the disk here
      statement.execute("SET synchronous_commit = off");
      for (int i = 0; i < 1000; i++) {
        // spread over 0.95 s, so that the bound of a whole second is what is tested
        long due = started + i * 950_000L;
        long wait = due - System.nanoTime();
        if (wait > 0) {
          LockSupport.parkNanos(wait);
        }
        statement.executeUpdate("UPDATE product SET version = version + 1 WHERE id = 2");
      }
      statement.execute("SET synchronous_commit = on");
    }
    long burstMillis = (System.nanoTime() - started) / 1_000_000;
    await("the last change is in").atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(5)).until(() -> "p2:1000".equals(first.get(key)));
    awaitNothingPending();

    long runs = first.database().executionsOf("product_burst_source") - before;
    // runs start a window apart at least; one more may follow the last notification
    long bound = (Math.max(burstMillis, 950) + WINDOW.toMillis()) / WINDOW.toMillis() + 1;
    LOG.info(
        "(b) 1,000 committed updates of one row in {} ms: {} source runs (bound {}, window {} ms); {} notifications received, {} coalesced",
        burstMillis,
        runs,
        bound,
        WINDOW.toMillis(),
        counter("refresher.changes.received") - receivedBefore,
        counter("refresher.changes.coalesced") - coalescedBefore);
    assertThat(runs).as("source runs for 1,000 changes in %d ms", burstMillis).isBetween(2L, bound);
    if (burstMillis < 950) {
      assertThat(runs).as("at most 1 s / window + 1").isLessThanOrEqualTo(1000 / WINDOW.toMillis() + 1);
    }
  }

  /** (e) A cold key the feed covers (through a template) has its value evicted, not recomputed. */
  @Test
  @Order(3)
  void coldTemplateKey_rowUpdated_valueEvictedNotRecomputed() throws Exception {
    putTemplate("products", "{\"pattern\":\"product:{id}\",\"source\":\"product-a\",\"ttl\":\"" + TTL + "\"}");
    String key = "product:5";
    // a value computed while the key was read, say; nobody reads it now
    first.reader().getBucket(key, StringCodec.INSTANCE).set("p5:old");
    long runsBefore = first.database().executionsOf("product_a_source");
    long evictedBefore = counter("refresher.changes.evicted");

    execute("UPDATE product SET version = version + 1 WHERE id = 5");

    await("the cold key's value is evicted").atMost(Duration.ofSeconds(5)).until(() -> first.get(key) == null);
    awaitNothingPending();
    assertThat(first.database().executionsOf("product_a_source") - runsBefore).as("source runs for the cold key").isZero();
    assertThat(counter("refresher.changes.evicted") - evictedBefore).isEqualTo(1);
  }

  /** (f) A fields payload through a template: the hot key it names is refreshed, a cold one evicted. */
  @Test
  @Order(4)
  void fieldsPayload_templateKeys_hotRefreshedColdEvicted() throws Exception {
    putTemplate("variants", "{\"pattern\":\"variant:{product}:{color}\",\"source\":\"variant-by-product-and-color\",\"ttl\":\"" + TTL + "\"}");
    String hot = "variant:10:red";
    String cold = "variant:11:green";
    first.reader().getBucket(cold, StringCodec.INSTANCE).set("green:old");
    try (AccessReporter reads = new AccessReporter(first.redis())) {
      reads.read(hot, 20);
      await("reads make the template key hot, and it is computed")
          .atMost(Duration.ofSeconds(20))
          .until(() -> "red:1".equals(first.get(hot)));

      long latency = updateAndAwait(first, "UPDATE product_variant SET stock = 7 WHERE product_id = 10 AND color = 'red'", hot, "red:7");
      execute("UPDATE product_variant SET stock = 9 WHERE product_id = 11 AND color = 'green'");
      await("the cold key's value is evicted").atMost(Duration.ofSeconds(5)).until(() -> first.get(cold) == null);
      LOG.info("(f) fields payload: hot template key refreshed {} ms after the commit; cold one evicted", latency);
      assertThat(latency).as("the hot key got the fields change").isNotNegative();
      assertThat(first.get("variant:10:blue")).as("an unchanged row's key is left alone").isNull();
    }
  }

  /** (c) Two replicas: each change runs the source once, on the listening replica only. */
  @Test
  @Order(5)
  void twoReplicas_eachChangeRunsTheSourceOnce() throws Exception {
    String key = "product:3";
    register(second, key, "product-a", "{\"id\":3}");
    awaitNothingPending();
    long before = first.database().executionsOf("product_a_source");
    long receivedBefore = counter(first, "refresher.changes.received") + counter(second, "refresher.changes.received");

    List<Long> latencies = new ArrayList<>();
    for (int version = 1; version <= 50; version++) {
      latencies.add(updateAndAwait(first, "UPDATE product SET version = version + 1 WHERE id = 3", key, "p3:" + version));
    }
    awaitNothingPending();

    long runs = first.database().executionsOf("product_a_source") - before;
    long received = counter(first, "refresher.changes.received") + counter(second, "refresher.changes.received") - receivedBefore;
    Collections.sort(latencies);
    LOG.info(
        "(c) 50 changes with two replicas: {} source runs, {} notifications received across replicas; commit to visible p50 {} ms, max {} ms",
        runs,
        received,
        percentile(latencies, 50),
        latencies.get(latencies.size() - 1));
    assertThat(latencies).doesNotContain(-1L);
    assertThat(received).as("notifications received by both replicas together: one listens").isEqualTo(50);
    assertThat(runs).as("source runs for 50 changes across two replicas").isEqualTo(50);
  }

  /** (d) The listening session is terminated: a replica listens again by itself, and a later change is refreshed. */
  @Test
  @Order(6)
  void listeningSessionTerminated_aReplicaListensAgain_laterChangesRefreshed() throws Exception {
    long terminated = leaderPid();
    assertThat(terminated).as("the listening session, found by application_name and its advisory lock").isPositive();
    long started = System.nanoTime();
    assertThat(first.database().queryLong("SELECT CASE WHEN pg_terminate_backend(" + terminated + ") THEN 1 ELSE 0 END"))
        .isEqualTo(1);

    await("a replica listens again on a new session")
        .atMost(Duration.ofSeconds(15))
        .pollInterval(Duration.ofMillis(20))
        .until(() -> {
          long pid = leaderPid();
          return pid > 0 && pid != terminated && listening(first) + listening(second) == 1 && !backendAlive(terminated);
        });
    long reconnectMillis = (System.nanoTime() - started) / 1_000_000;

    long latency = updateAndAwait(first, "UPDATE product SET version = version + 1 WHERE id = 1", "product:1", "p1:101");
    LOG.info("(d) listening session terminated: listening again after {} ms; next change visible {} ms after its commit", reconnectMillis, latency);
    assertThat(latency).as("a change after the reconnection is refreshed").isNotNegative();
  }

  /** (c) The listening replica stops: the other takes over, and later changes are still refreshed. */
  @Test
  @Order(7)
  void listeningReplicaStops_theOtherTakesOver_laterChangesRefreshed() throws Exception {
    boolean firstLeads = listening(first) == 1;
    TestApp leader = firstLeads ? first : second;
    TestApp standby = firstLeads ? second : first;
    // the stop itself takes a while (Jetty, the dispatcher, Quartz): watch the standby meanwhile
    long started = System.nanoTime();
    AtomicLong takeoverNanos = new AtomicLong();
    ScheduledExecutorService watch = Executors.newSingleThreadScheduledExecutor();
    watch.scheduleWithFixedDelay(
        () -> {
          if (takeoverNanos.get() == 0 && listening(standby) == 1) {
            takeoverNanos.set(System.nanoTime());
          }
        },
        0,
        5,
        TimeUnit.MILLISECONDS);
    try {
      STOPPED.add(leader);
      leader.extension().after();
      await("the standby takes over").atMost(Duration.ofSeconds(10)).until(() -> takeoverNanos.get() != 0);
    } finally {
      watch.shutdownNow();
    }
    long takeoverMillis = (takeoverNanos.get() - started) / 1_000_000;

    long latency = updateAndAwait(standby, "UPDATE product SET version = version + 1 WHERE id = 3", "product:3", "p3:51");
    LOG.info(
        "(c) listening replica ({}) stopped: the other listens {} ms after the stop began; next change visible {} ms after its commit",
        firstLeads ? "first" : "second",
        takeoverMillis,
        latency);
    assertThat(latency).as("a change after the takeover is refreshed").isNotNegative();
  }

  // ---------------------------------------------------------------------------------------------

  /**
   * The SQL between {@code -- refresher-doc:<name>:begin} and {@code :end} in the documentation, so
   * that the documented trigger is the one tested.
   */
  static String documentedSql(String name) {
    Pattern block = Pattern.compile("-- refresher-doc:" + Pattern.quote(name) + ":begin\\R(.*?)\\R-- refresher-doc:" + Pattern.quote(name) + ":end", Pattern.DOTALL);
    for (Path doc : DOCS) {
      if (!Files.exists(doc)) {
        continue;
      }
      try {
        Matcher matcher = block.matcher(Files.readString(doc));
        if (matcher.find()) {
          return matcher.group(1);
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    throw new IllegalStateException("no '" + name + "' SQL block in " + DOCS);
  }

  private static void register(TestApp via, String key, String source, String params) {
    try (Response response =
        via.putKey(key, "{\"source\":\"" + source + "\",\"params\":" + params + ",\"ttl\":\"" + TTL + "\"}")) {
      assertThat(response.getStatus()).as("register %s", key).isEqualTo(201);
    }
  }

  /** Creates a template through the first replica and waits until the second knows it too. */
  private static void putTemplate(String name, String json) {
    try (Response response = first.putTemplate(name, json)) {
      assertThat(response.getStatus()).as("template %s", name).isEqualTo(201);
    }
    await("both replicas know template " + name)
        .atMost(Duration.ofSeconds(10))
        .until(() -> knows(first, name) && knows(second, name));
  }

  private static boolean knows(TestApp app, String template) {
    return app.parts().templates().templates().stream().map(KeyTemplate::name).anyMatch(template::equals);
  }

  private static void execute(String sql) throws SQLException {
    try (Statement statement = writer.createStatement()) {
      statement.executeUpdate(sql);
    }
  }

  /**
   * Commits {@code update} and polls Redis every millisecond until {@code key} holds {@code
   * expected}: the time from the commit's return to the value being readable, in ms; -1 when it
   * did not come within 5 s.
   */
  private static long updateAndAwait(TestApp reader, String update, String key, String expected) throws SQLException {
    execute(update);
    long committed = System.nanoTime();
    long deadline = committed + Duration.ofSeconds(5).toNanos();
    while (System.nanoTime() < deadline) {
      if (expected.equals(reader.get(key))) {
        return (System.nanoTime() - committed) / 1_000_000;
      }
      LockSupport.parkNanos(Duration.ofMillis(1).toNanos());
    }
    return -1;
  }

  /** Waits until neither replica has a change refresh going on or planned. */
  private static void awaitNothingPending() {
    await("no change refresh going on or planned")
        .atMost(Duration.ofSeconds(10))
        .pollInterval(Duration.ofMillis(10))
        .until(() -> pending(first) + pending(second) == 0);
  }

  private static long percentile(List<Long> sorted, int percent) {
    int index = (int) Math.ceil(percent / 100.0 * sorted.size()) - 1;
    return sorted.get(Math.max(0, Math.min(sorted.size() - 1, index)));
  }

  /** The backend that holds the listeners' advisory lock (0: none). */
  private static long leaderPid() {
    return first.database().queryLong(
        "SELECT coalesce(max(a.pid), 0) FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid"
            + " WHERE l.locktype = 'advisory' AND l.granted AND l.classid = " + LeaderLock.CLASS_ID
            + " AND a.application_name = '" + ListeningConnections.APPLICATION_NAME + "' AND a.datname = current_database()");
  }

  private static boolean backendAlive(long pid) {
    return first.database().queryLong("SELECT count(*) FROM pg_stat_activity WHERE pid = " + pid) > 0;
  }

  private static MetricRegistry metrics(TestApp app) {
    return app.extension().getEnvironment().metrics();
  }

  private static int listening(TestApp app) {
    return gauge(app, "refresher.changes.listening");
  }

  private static int pending(TestApp app) {
    if (STOPPED.contains(app)) {
      return 0;
    }
    return gauge(app, "refresher.changes.pending");
  }

  private static int gauge(TestApp app, String name) {
    Gauge<?> gauge = metrics(app).getGauges().get(name);
    return gauge == null ? 0 : ((Number) gauge.getValue()).intValue();
  }

  private static long counter(TestApp app, String name) {
    Counter counter = metrics(app).getCounters().get(name);
    return counter == null ? 0 : counter.getCount();
  }

  /** A counter summed over both replicas. */
  private static long counter(String name) {
    return counter(first, name) + counter(second, name);
  }
}
