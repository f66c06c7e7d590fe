package io.refresher.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.codahale.metrics.Counter;
import com.codahale.metrics.Gauge;
import io.refresher.testing.TestApp;
import jakarta.ws.rs.core.Response;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A flood of notifications for keys nothing covers must not crowd out a real change (issue 18,
 * point 4): on real PostgreSQL and Redis, a {@code payload: key} feed receives 200,000 {@code
 * pg_notify} of unregistered keys in one transaction, then, 1 ms after that commit, an {@code
 * UPDATE} of a registered key's row (through the documented key trigger). The registered key's new
 * value must be in Redis within 2 s of its commit (the acceptance), no change may be
 * dropped, and every uncovered key is counted as ignored.
 *
 * <p>Before the fix the uncovered keys filled the coalescer's pending set (100,000 places), each
 * waiting for a registry query of its own; the real change was dropped with 100,000 others and
 * waited for the key's TTL.
 */
class ChangeFloodIT {

  private static final Logger LOG = LoggerFactory.getLogger(ChangeFloodIT.class);
  private static final int FLOOD = 200_000;
  private static final String KEY = "product:1";

  private static final List<String> SET_UP =
      List.of(
          "CREATE TABLE product (id bigint PRIMARY KEY, name text NOT NULL, version int NOT NULL DEFAULT 0)",
          "INSERT INTO product (id, name) SELECT g, 'p' || g FROM generate_series(1, 10) g",
          ChangeNotificationsIT.documentedSql("key-trigger"));

  private static final String[] OVERRIDES = {
    "sources.product-a.sql", "SELECT name || ':' || version AS product_a_source FROM product WHERE id = :id",
    "sources.product-a.timeout", "2s", // below refresh.lockLease (5 s): SourceLeaseCheck
    "sources.product-a.params.id", "long",
    "sources.product-a.result", "scalar",
    "sources.product-a.changes.channel", "product_changed",
    "sources.product-a.changes.payload", "key",
    "changes.coalesceWindow", "50ms",
    "changes.reconnectDelay", "500ms",
  };

  private static TestApp app;
  private static Connection writer;

  @BeforeAll
  static void start() throws Exception {
    app = TestApp.create("change_flood", SET_UP, OVERRIDES);
    app.extension().before();
    // the batch's true counts and how long its coverage took, for the figures
    handlerLog().setLevel(ch.qos.logback.classic.Level.DEBUG);
    writer = app.database().connect();
    await("the replica listens").atMost(Duration.ofSeconds(10)).until(() -> gauge("refresher.changes.listening") == 1);
  }

  @AfterAll
  static void stop() throws SQLException {
    try {
      if (writer != null) {
        writer.close();
      }
    } finally {
      handlerLog().setLevel(null);
      if (app != null) {
        app.extension().after();
      }
    }
  }

  private static ch.qos.logback.classic.Logger handlerLog() {
    return (ch.qos.logback.classic.Logger) LoggerFactory.getLogger(io.refresher.refresh.ChangeHandler.class);
  }

  @Test
  void flood_uncoveredKeysThenRegisteredKeyChange_changeInRedisWithinTwoSeconds_nothingDropped() throws Exception {
    try (Response response =
        app.putKey(KEY, "{\"source\":\"product-a\",\"params\":{\"id\":1},\"ttl\":\"PT1H\",\"policy\":\"always\"}")) {
      assertThat(response.getStatus()).isEqualTo(201);
    }
    assertThat(app.get(KEY)).isEqualTo("p1:0");
    long receivedBefore = counter("refresher.changes.received");
    long ignoredBefore = counter("refresher.changes.ignored");
    long droppedBefore = counter("refresher.changes.dropped");

    writer.setAutoCommit(false);
    try (Statement statement = writer.createStatement();
        ResultSet sent =
            statement.executeQuery(
                "SELECT count(pg_notify('product_changed', 'unregistered:' || g)) FROM generate_series(1, " + FLOOD + ") g")) {
      assertThat(sent.next()).isTrue();
      assertThat(sent.getLong(1)).isEqualTo(FLOOD);
    }
    writer.commit();
    long floodCommitted = System.nanoTime();
    writer.setAutoCommit(true);
    // the scenario of the issue: the real change commits 1 ms after the flood
    LockSupport.parkNanos(Duration.ofMillis(1).toNanos());
    try (Statement statement = writer.createStatement()) {
      statement.executeUpdate("UPDATE product SET version = version + 1 WHERE id = 1");
    }
    long committed = System.nanoTime();

    long visibleMillis = -1;
    long deadline = committed + Duration.ofSeconds(20).toNanos();
    while (System.nanoTime() < deadline) {
      if ("p1:1".equals(app.get(KEY))) {
        visibleMillis = (System.nanoTime() - committed) / 1_000_000;
        break;
      }
      LockSupport.parkNanos(Duration.ofMillis(1).toNanos());
    }
    await("every notification received")
        .atMost(Duration.ofSeconds(60))
        .until(() -> counter("refresher.changes.received") - receivedBefore >= FLOOD + 1);
    long received = counter("refresher.changes.received") - receivedBefore;
    long ignored = counter("refresher.changes.ignored") - ignoredBefore;
    long dropped = counter("refresher.changes.dropped") - droppedBefore;
    LOG.info(
        "flood of {} uncovered keys: the registered key's change visible {} ms after its commit (-1: not within 20 s),"
            + " {} ms after the flood's; received {}, ignored {}, dropped {}, deferred {}",
        FLOOD,
        visibleMillis,
        visibleMillis < 0 ? -1 : (committed - floodCommitted) / 1_000_000 + visibleMillis,
        received,
        ignored,
        dropped,
        counter("refresher.changes.deferred"));

    assertThat(visibleMillis).as("ms from the registered key's commit to its value in Redis (-1: not within 20 s)").isBetween(0L, 2000L);
    assertThat(dropped).as("changes dropped").isZero();
    assertThat(received).isEqualTo(FLOOD + 1);
    await("the uncovered keys are all counted as ignored")
        .atMost(Duration.ofSeconds(60))
        .until(() -> counter("refresher.changes.ignored") - ignoredBefore == FLOOD);
  }

  private static long counter(String name) {
    Counter counter = app.extension().getEnvironment().metrics().getCounters().get(name);
    return counter == null ? 0 : counter.getCount();
  }

  private static int gauge(String name) {
    Gauge<?> gauge = app.extension().getEnvironment().metrics().getGauges().get(name);
    return gauge == null ? 0 : ((Number) gauge.getValue()).intValue();
  }
}
