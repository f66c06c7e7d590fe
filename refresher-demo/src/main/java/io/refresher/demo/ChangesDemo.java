package io.refresher.demo;

import io.refresher.client.redisson.RedissonDriver;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.refresher.client.RefresherClient;
import io.refresher.embedded.EmbeddedPostgreSql;
import io.refresher.embedded.EmbeddedRedis;
import io.refresher.embedded.FreePorts;
import java.io.PrintStream;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.redisson.api.RBucket;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

/**
 * {@code demo --changes}: a changed row reaches Redis in milliseconds, as a refresh, while readers
 * keep reading and never miss.
 *
 * <p>Readers make products 1-4 hot through the client library. Their template has a TTL of a
 * minute, so only the change feed can make a change visible sooner: the source {@code
 * product-by-id} names the channel {@code demo_product_changed}, and the table has the trigger of
 * {@code docs/sources.md}, which sends each changed row's id. Every second the demo commits an
 * {@code UPDATE} of one product's price and watches Redis until the new price is there.
 *
 * <p>With {@code --feed log} the changes come from the write-ahead log instead (change capture: a
 * publication of the table, no trigger), and at the end the demo stops the service, commits a
 * change, starts the service again and shows the change arriving: the replication slot kept it.
 *
 * <p>Beside it, {@code product:9} is cached the usual way and invalidated the usual way: on each of
 * its changes the application deletes the key, and every reader that arrives in the next 200 ms
 * misses and runs the query itself. The two are counted side by side.
 */
final class ChangesDemo {

  static final String CHANNEL = "demo_product_changed";
  private static final List<String> PRODUCTS = List.of("product:1", "product:2", "product:3", "product:4");
  private static final String INVALIDATED_KEY = "invalidated:product:9";
  private static final String INVALIDATED_SQL =
      "SELECT json_build_object('id', id, 'name', name, 'price', price)::text AS demo_invalidated_query,"
          + " pg_sleep(0.2) FROM demo_product WHERE id = 9";
  private static final Duration WARM_UP = Duration.ofSeconds(4);
  /** How long a change may take to show before the demo calls it missed. */
  private static final Duration VISIBLE_WITHIN = Duration.ofSeconds(2);
  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * The trigger of docs/sources.md, as an operator adds it: after each insert or update, the row's
   * id as a JSON object, which fills the template's {id}.
   */
  static final String TRIGGER_SQL =
      """
      CREATE OR REPLACE FUNCTION demo_product_changed_notify() RETURNS trigger
      LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify('demo_product_changed', json_build_object('id', NEW.id)::text);
        RETURN NULL;
      END;
      $$;

      CREATE TRIGGER demo_product_changed
        AFTER INSERT OR UPDATE ON demo_product
        FOR EACH ROW EXECUTE FUNCTION demo_product_changed_notify();
      """;

  /** With {@code --feed log}: the publication change capture reads (made as an operator would). */
  static final String PUBLICATION = "demo_products";

  static final String PUBLICATION_SQL = "CREATE PUBLICATION " + PUBLICATION + " FOR TABLE demo_product";

  private final DemoOptions options;
  private final PrintStream out;

  ChangesDemo(DemoOptions options, PrintStream out) {
    this.options = options;
    this.out = out;
  }

  ChangesReport run() throws Exception {
    boolean log = options.logFeed();
    DemoServers servers = DemoServers.start(out, log);
    EmbeddedRedis redis = servers.redis();
    String dbUrl = servers.dbUrl();
    Demo.seed(dbUrl);
    try (Connection connection = connect(dbUrl); Statement statement = connection.createStatement()) {
      statement.execute(log ? PUBLICATION_SQL : TRIGGER_SQL);
    }

    int httpPort = FreePorts.next();
    String token = UUID.randomUUID().toString();
    List<ConfigValue> feed =
        log
            ? List.of(
                ConfigValue.of(PUBLICATION, "database", "capture", "publication"),
                ConfigValue.of(List.of("product-by-id"), "database", "capture", "tables", "demo_product", "sources"))
            : List.of(ConfigValue.of(Map.of("channel", CHANNEL, "payload", "fields"), "sources", "product-by-id", "changes"));
    List<ConfigValue> values = new java.util.ArrayList<>(feed);
    // The audit off: this demo counts the source's runs per change, and the audit's would add to them.
    values.add(ConfigValue.of(0, "database", "auditSamplesPerSecond"));
    Path config = Demo.writeConfig(redis.url(), dbUrl, httpPort, FreePorts.next(), token, values);
    out.println("Starting the Refresher service on http://127.0.0.1:" + httpPort + " ...");
    DemoApplication app = new DemoApplication();
    app.run("server", config.toString());
    AdminClient admin = new AdminClient(httpPort, token);
    admin.awaitReady(Duration.ofSeconds(60));
    admin.put("/v1/templates/products", "{\"pattern\":\"product:{id}\",\"source\":\"product-by-id\",\"ttl\":\"PT60S\"}");
    out.println("Through config.yml and the admin API:");
    if (log) {
      out.println("  database.capture reads the write-ahead log: publication " + PUBLICATION + " (CREATE PUBLICATION " + PUBLICATION
          + " FOR TABLE demo_product), table demo_product naming keys by the templates of source product-by-id;");
    } else {
      out.println("  source product-by-id has changes: {channel: " + CHANNEL + ", payload: fields};");
      out.println("  table demo_product has the trigger of docs/sources.md (pg_notify with the row's id after each change);");
    }
    out.println("  template 'products' (product:{id}) has a TTL of 60 s: only the change feed can show a change sooner.");
    out.printf("Readers read %s (they become hot) and %s, cached the usual way and deleted on change.%n%n", PRODUCTS, INVALIDATED_KEY);

    RedissonClient redisson = Demo.readerClient(redis.url());
    RefresherClient client = RefresherClient.builder(RedissonDriver.of(redisson)).flushInterval(Duration.ofMillis(250)).build();
    DemoReaders readers =
        new DemoReaders(
            client,
            redisson,
            dbUrl,
            options.readers(),
            options.rate(),
            () -> PRODUCTS,
            new DemoReaders.UsualWay(INVALIDATED_KEY, INVALIDATED_SQL, Duration.ofSeconds(60), 5));
    ChangesReport report;
    try {
      report = changes(dbUrl, redisson, readers);
      if (log) {
        app = whileStopped(app, config, admin, dbUrl, redisson);
        report = report.withWhileStopped(whileStoppedMillis);
      }
    } finally {
      readers.close();
      client.close();
      redisson.shutdown();
    }
    out.println("Stopping the service, then Redis and PostgreSQL...");
    app.stopServer();
    servers.close();
    return report;
  }

  private Long whileStoppedMillis;

  /**
   * The log feed's point: stops the service, commits a change of product 1 while nothing reads the
   * log, starts the service again and watches Redis until the change is there. Returns the running
   * service.
   */
  private DemoApplication whileStopped(DemoApplication app, Path config, AdminClient admin, String dbUrl, RedissonClient redisson)
      throws Exception {
    out.println();
    out.println("  Stopping the service; nothing reads the log now.");
    app.stopServer();
    BigDecimal price;
    try (Connection connection = connect(dbUrl)) {
      price = update(connection, 1);
    }
    out.printf("  UPDATE demo_product SET price = %s (id 1) committed while the service is stopped; starting it again...%n", price.toPlainString());
    DemoApplication restarted = new DemoApplication();
    restarted.run("server", config.toString());
    admin.awaitReady(Duration.ofSeconds(60));
    long ready = System.nanoTime();
    whileStoppedMillis = awaitPrice(redisson, "product:1", price, ready, Duration.ofSeconds(10));
    out.printf(
        "  the service is ready again; the change made while it was stopped is in Redis %s%n",
        whileStoppedMillis == null ? "NOT within 10 s" : whileStoppedMillis + " ms later (the replication slot kept it)");
    return restarted;
  }

  /** Warm-up, then one committed change a second, each watched until it is in Redis. */
  private ChangesReport changes(String dbUrl, RedissonClient redisson, DemoReaders readers) throws Exception {
    out.printf("  warming up for %d s: the readers make the products hot...%n", WARM_UP.toSeconds());
    LockSupport.parkNanos(WARM_UP.toNanos());
    out.println("  time | change committed                       | in Redis after | reads  misses while hot | usual way: deleted, then misses  db queries");
    long seconds = Math.max(3, options.seconds() == 0 ? 30 : options.seconds() - WARM_UP.toSeconds());
    long start = System.nanoTime();
    List<Long> latencies = new ArrayList<>();
    int notVisible = 0;
    long invalidationMisses = 0;
    long invalidationQueries = 0;
    long sourceBefore = Demo.executions(dbUrl, "demo_product_query");
    long lastReads = readers.reads();
    long lastMisses = readers.hotMisses();
    try (Connection connection = connect(dbUrl)) {
      for (int change = 0; change < seconds; change++) {
        LockSupport.parkNanos(start + TimeUnit.SECONDS.toNanos(change) - System.nanoTime());
        int id = change % PRODUCTS.size() + 1;
        BigDecimal price = update(connection, id);
        long committed = System.nanoTime();
        Long latency = awaitPrice(redisson, "product:" + id, price, committed);
        long missesBefore = readers.usualMisses();
        long queriesBefore = Demo.executions(dbUrl, "demo_invalidated_query");
        // the usual way: the application changed product 9 too, and deletes its cache key
        update(connection, 9);
        redisson.getBucket(INVALIDATED_KEY, StringCodec.INSTANCE).delete();
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(400));
        long burstMisses = readers.usualMisses() - missesBefore;
        long burstQueries = Demo.executions(dbUrl, "demo_invalidated_query") - queriesBefore;
        invalidationMisses += burstMisses;
        invalidationQueries += burstQueries;
        if (latency == null) {
          notVisible++;
        } else {
          latencies.add(latency);
        }
        long readsNow = readers.reads();
        long missesNow = readers.hotMisses();
        out.printf(
            "  %3ds | UPDATE demo_product SET price = %7s (id %d) | %11s | %5d  %16d | %27d  %10d%n",
            WARM_UP.toSeconds() + change + 1,
            price.toPlainString(),
            id,
            latency == null ? "not in " + VISIBLE_WITHIN.toSeconds() + " s" : latency + " ms",
            readsNow - lastReads,
            missesNow - lastMisses,
            burstMisses,
            burstQueries);
        lastReads = readsNow;
        lastMisses = missesNow;
      }
    }
    long sourceRuns = Demo.executions(dbUrl, "demo_product_query") - sourceBefore;
    Collections.sort(latencies);
    return new ChangesReport(
        (int) seconds,
        latencies,
        notVisible,
        readers.reads(),
        readers.hotMisses(),
        readers.coldStartMisses(),
        sourceRuns,
        readers.usualReads(),
        invalidationMisses,
        invalidationQueries,
        options.logFeed() ? "log" : "notify",
        null);
  }

  /** Raises the product's price by a cent and commits; the trigger's notification goes at commit. */
  private static BigDecimal update(Connection connection, int id) throws SQLException {
    try (PreparedStatement statement =
        connection.prepareStatement("UPDATE demo_product SET price = price + 0.01 WHERE id = ? RETURNING price")) {
      statement.setInt(1, id);
      try (ResultSet rs = statement.executeQuery()) {
        rs.next();
        return rs.getBigDecimal(1);
      }
    }
  }

  /** Milliseconds from the commit until Redis holds the new price, or null if not within the bound. */
  private static Long awaitPrice(RedissonClient redisson, String key, BigDecimal price, long committedNanos) throws Exception {
    return awaitPrice(redisson, key, price, committedNanos, VISIBLE_WITHIN);
  }

  private static Long awaitPrice(RedissonClient redisson, String key, BigDecimal price, long committedNanos, Duration within)
      throws Exception {
    RBucket<String> bucket = redisson.getBucket(key, StringCodec.INSTANCE);
    long deadline = committedNanos + within.toNanos();
    while (System.nanoTime() < deadline) {
      String value = bucket.get();
      if (value != null) {
        JsonNode node = JSON.readTree(value);
        if (node.path("price").decimalValue().compareTo(price) == 0) {
          return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - committedNanos);
        }
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
    }
    return null;
  }

  private static Connection connect(String dbUrl) throws SQLException {
    return DriverManager.getConnection(dbUrl, EmbeddedPostgreSql.USER, EmbeddedPostgreSql.PASSWORD);
  }
}
