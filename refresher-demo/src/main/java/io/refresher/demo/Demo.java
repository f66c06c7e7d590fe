package io.refresher.demo;

import com.codahale.metrics.Meter;
import io.refresher.embedded.EmbeddedPostgreSql;
import io.refresher.embedded.EmbeddedRedis;
import io.refresher.embedded.FreePorts;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.redisson.Redisson;
import org.redisson.api.RBucket;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.redisson.config.Config;

/**
 * One demo run: embedded servers, sample data, the real service, registered keys, simulated
 * readers, and a line of figures per second.
 *
 * <p>Readers read like any application: {@code GET key}. Most reads go to keys registered with
 * Refresher; a tenth go to one key cached the usual way (cache-aside: on a miss the reader runs the
 * query itself and sets the key with a TTL), so the two behaviours can be compared side by side.
 */
final class Demo {

  private static final Duration HOT_TTL = Duration.ofSeconds(10);
  private static final String CACHE_ASIDE_KEY = "cache-aside:product:9";
  private static final String CACHE_ASIDE_SQL =
      "SELECT json_build_object('id', id, 'name', name, 'price', price)::text AS demo_cacheaside_query,"
          + " pg_sleep(0.2) FROM demo_product WHERE id = 9";

  private final DemoOptions options;
  private final PrintStream out;
  private final AtomicBoolean stop = new AtomicBoolean();
  private final AtomicLong hotReads = new AtomicLong();
  private final AtomicLong hotMisses = new AtomicLong();
  private final AtomicLong asideReads = new AtomicLong();
  private final AtomicLong asideMisses = new AtomicLong();

  Demo(DemoOptions options, PrintStream out) {
    this.options = options;
    this.out = out;
  }

  DemoReport run() throws Exception {
    out.println("Starting embedded PostgreSQL and Redis (real servers from Maven artifacts)...");
    EmbeddedPostgreSql postgres = EmbeddedPostgreSql.start();
    Runtime.getRuntime().addShutdownHook(new Thread(postgres::close, "demo-postgres-stop"));
    EmbeddedRedis redis = EmbeddedRedis.start();
    Runtime.getRuntime().addShutdownHook(new Thread(redis::close, "demo-redis-stop"));
    String dbUrl = postgres.createDatabase("refresher_demo");
    seed(dbUrl);

    int httpPort = FreePorts.next();
    String token = UUID.randomUUID().toString();
    Path config = writeConfig(redis.url(), dbUrl, httpPort, FreePorts.next(), token);
    out.println("Starting the Refresher service on http://127.0.0.1:" + httpPort + " ...");
    DemoApplication app = new DemoApplication();
    app.run("server", config.toString());

    AdminClient admin = new AdminClient(httpPort, token);
    admin.awaitReady(Duration.ofSeconds(60));
    List<String> hotKeys = registerKeys(admin);

    RedissonClient reader = readerClient(redis.url());
    ExecutorService readers = startReaders(reader, hotKeys, dbUrl);
    DemoReport report = report(dbUrl, app, hotKeys);
    stop.set(true);
    readers.shutdown();
    readers.awaitTermination(5, TimeUnit.SECONDS);
    reader.shutdown();
    out.println("Stopping the service, then Redis and PostgreSQL...");
    app.stopServer();
    redis.close();
    postgres.close();
    return report;
  }

  private List<String> registerKeys(AdminClient admin) throws IOException, InterruptedException {
    List<String> keys = new ArrayList<>();
    out.println("Registering hot keys through the admin API (each is computed at once, ~200 ms):");
    for (int id = 1; id <= 8; id++) {
      String key = "product:" + id;
      admin.register(key, "{\"source\":\"product-by-id\",\"params\":{\"id\":" + id + "},\"ttl\":\"" + HOT_TTL + "\"}");
      keys.add(key);
    }
    for (String category : List.of("laptops", "phones")) {
      String key = "category:" + category + ":top5";
      admin.register(key, "{\"source\":\"category-top\",\"params\":{\"category\":\"" + category + "\"},\"ttl\":\"PT15S\"}");
      keys.add(key);
    }
    out.printf("  %s%n", String.join(", ", keys));
    out.printf(
        "  and %s is cached the usual way (cache-aside, 10 s TTL), for comparison.%n%n", CACHE_ASIDE_KEY);
    return keys;
  }

  private ExecutorService startReaders(RedissonClient reader, List<String> hotKeys, String dbUrl) {
    ExecutorService pool = Executors.newFixedThreadPool(options.readers(), runnable -> {
      Thread thread = new Thread(runnable, "demo-reader");
      thread.setDaemon(true);
      return thread;
    });
    long intervalNanos = TimeUnit.SECONDS.toNanos(1) * options.readers() / Math.max(1, options.rate());
    for (int i = 0; i < options.readers(); i++) {
      pool.execute(() -> readLoop(reader, hotKeys, dbUrl, intervalNanos));
    }
    return pool;
  }

  private void readLoop(RedissonClient reader, List<String> hotKeys, String dbUrl, long intervalNanos) {
    try (Connection connection = DriverManager.getConnection(dbUrl, EmbeddedPostgreSql.USER, EmbeddedPostgreSql.PASSWORD)) {
      long next = System.nanoTime();
      while (!stop.get()) {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        if (random.nextInt(10) == 0) {
          readCacheAside(reader, connection);
        } else {
          String key = hotKeys.get(random.nextInt(hotKeys.size()));
          hotReads.incrementAndGet();
          if (reader.getBucket(key, StringCodec.INSTANCE).get() == null) {
            hotMisses.incrementAndGet();
          }
        }
        next += intervalNanos;
        long wait = next - System.nanoTime();
        if (wait > 0) {
          LockSupport.parkNanos(wait);
        }
      }
    } catch (SQLException e) {
      throw new IllegalStateException("demo reader lost its database connection", e);
    }
  }

  /** What applications do today without Refresher: on a miss, compute and set. */
  private void readCacheAside(RedissonClient reader, Connection connection) throws SQLException {
    asideReads.incrementAndGet();
    RBucket<String> bucket = reader.getBucket(CACHE_ASIDE_KEY, StringCodec.INSTANCE);
    if (bucket.get() != null) {
      return;
    }
    asideMisses.incrementAndGet();
    try (Statement statement = connection.createStatement();
        ResultSet rs = statement.executeQuery(CACHE_ASIDE_SQL)) {
      rs.next();
      bucket.set(rs.getString(1), HOT_TTL);
    }
  }

  private DemoReport report(String dbUrl, DemoApplication app, List<String> hotKeys) throws SQLException {
    out.println("  time | hot keys: reads/s  misses | db: source queries/s  refreshes/s | cache-aside key: reads/s  misses/s  db queries/s");
    long start = System.nanoTime();
    long lastReads = 0;
    long lastMisses = 0;
    long lastSource = sourceQueries(dbUrl);
    long firstSource = lastSource;
    long lastAsideReads = 0;
    long lastAsideMisses = 0;
    long lastAsideQueries = asideQueries(dbUrl);
    long firstAsideQueries = lastAsideQueries;
    long peakAside = 0;
    Meter refreshed = app.metrics().meter("refresher.refresh.refreshed");
    long firstRefreshes = refreshed.getCount();
    long lastRefreshes = firstRefreshes;
    long second = 0;
    while (options.seconds() == 0 || second < options.seconds()) {
      second++;
      LockSupport.parkNanos(start + TimeUnit.SECONDS.toNanos(second) - System.nanoTime());
      long reads = hotReads.get();
      long misses = hotMisses.get();
      long source = sourceQueries(dbUrl);
      long refreshes = refreshed.getCount();
      long asideRead = asideReads.get();
      long asideQuery = asideQueries(dbUrl);
      peakAside = Math.max(peakAside, asideQuery - lastAsideQueries);
      out.printf(
          "  %3ds |          %6d  %6d |              %6d       %6d |                  %6d    %6d        %6d%n",
          second,
          reads - lastReads,
          misses - lastMisses,
          source - lastSource,
          refreshes - lastRefreshes,
          asideRead - lastAsideReads,
          asideMisses.get() - lastAsideMisses,
          asideQuery - lastAsideQueries);
      lastAsideMisses = asideMisses.get();
      lastReads = reads;
      lastMisses = misses;
      lastSource = source;
      lastRefreshes = refreshes;
      lastAsideReads = asideRead;
      lastAsideQueries = asideQuery;
    }
    return new DemoReport(
        second,
        hotKeys.size(),
        hotReads.get(),
        hotMisses.get(),
        lastSource - firstSource,
        lastRefreshes - firstRefreshes,
        asideReads.get(),
        asideMisses.get(),
        lastAsideQueries - firstAsideQueries,
        peakAside);
  }

  private static long sourceQueries(String dbUrl) throws SQLException {
    return executions(dbUrl, "demo_product_query") + executions(dbUrl, "demo_category_query");
  }

  private static long asideQueries(String dbUrl) throws SQLException {
    return executions(dbUrl, "demo_cacheaside_query");
  }

  /** Exact executions of statements containing the marker, from pg_stat_statements. */
  private static long executions(String dbUrl, String marker) throws SQLException {
    try (Connection connection = DriverManager.getConnection(dbUrl, EmbeddedPostgreSql.USER, EmbeddedPostgreSql.PASSWORD);
        Statement statement = connection.createStatement();
        ResultSet rs =
            statement.executeQuery(
                "SELECT coalesce(sum(calls), 0) FROM pg_stat_statements WHERE query LIKE '%"
                    + marker
                    + "%' AND query NOT LIKE '%pg_stat_statements%'")) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private static void seed(String dbUrl) throws SQLException {
    try (Connection connection = DriverManager.getConnection(dbUrl, EmbeddedPostgreSql.USER, EmbeddedPostgreSql.PASSWORD);
        Statement statement = connection.createStatement()) {
      statement.execute(
          "CREATE TABLE demo_product (id bigint PRIMARY KEY, name text NOT NULL, category text NOT NULL, price numeric(10,2) NOT NULL)");
      statement.execute(
          "INSERT INTO demo_product VALUES "
              + "(1, 'Ultrabook 13', 'laptops', 1299.00), (2, 'Gaming laptop 17', 'laptops', 2199.00),"
              + "(3, 'Chromebook 11', 'laptops', 329.00), (4, 'Workstation 16', 'laptops', 3199.00),"
              + "(5, 'Phone Pro', 'phones', 1099.00), (6, 'Phone Mini', 'phones', 699.00),"
              + "(7, 'Phone Lite', 'phones', 399.00), (8, 'Foldable phone', 'phones', 1799.00),"
              + "(9, 'Tablet 11', 'tablets', 799.00), (10, 'E-reader', 'tablets', 149.00)");
    }
  }

  private static Path writeConfig(String redisUrl, String dbUrl, int httpPort, int adminPort, String token)
      throws IOException {
    String template;
    try (InputStream in = Demo.class.getResourceAsStream("/demo.yml")) {
      if (in == null) {
        throw new IllegalStateException("demo.yml is missing from the jar");
      }
      template = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    String yaml =
        template
            .replace("@REDIS_URL@", redisUrl)
            .replace("@DB_URL@", dbUrl)
            .replace("@DB_USER@", EmbeddedPostgreSql.USER)
            .replace("@DB_PASSWORD@", EmbeddedPostgreSql.PASSWORD)
            .replace("@ADMIN_TOKEN@", token)
            .replace("@HTTP_PORT@", Integer.toString(httpPort))
            .replace("@ADMIN_PORT@", Integer.toString(adminPort));
    Path file = Files.createTempFile("refresher-demo", ".yml");
    file.toFile().deleteOnExit();
    Files.writeString(file, yaml);
    return file;
  }

  private static RedissonClient readerClient(String url) {
    Config config = new Config();
    config.setCodec(StringCodec.INSTANCE);
    config.useSingleServer().setAddress(url).setConnectionPoolSize(32).setConnectionMinimumIdleSize(8);
    return Redisson.create(config);
  }

  /** The admin API, as an operator's script would call it. */
  private static final class AdminClient {
    private final HttpClient http = HttpClient.newHttpClient();
    private final int port;
    private final String token;

    AdminClient(int port, String token) {
      this.port = port;
      this.token = token;
    }

    void awaitReady(Duration timeout) throws InterruptedException {
      long deadline = System.nanoTime() + timeout.toNanos();
      while (System.nanoTime() < deadline) {
        try {
          HttpResponse<Void> response =
              http.send(
                  HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/health-check?type=ready")).build(),
                  HttpResponse.BodyHandlers.discarding());
          if (response.statusCode() == 200) {
            return;
          }
        } catch (IOException e) {
          // not listening yet
        }
        TimeUnit.MILLISECONDS.sleep(200);
      }
      throw new IllegalStateException("the service did not become ready within " + timeout);
    }

    void register(String key, String json) throws IOException, InterruptedException {
      HttpResponse<String> response =
          http.send(
              HttpRequest.newBuilder(
                      URI.create(
                          "http://127.0.0.1:" + port + "/v1/keys/"
                              + URLEncoder.encode(key, StandardCharsets.UTF_8).replace("+", "%20")))
                  .header("Authorization", "Bearer " + token)
                  .header("Content-Type", "application/json")
                  .PUT(HttpRequest.BodyPublishers.ofString(json))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      if (response.statusCode() != 201 && response.statusCode() != 200) {
        throw new IllegalStateException("registering " + key + " failed: " + response.statusCode() + " " + response.body());
      }
    }
  }
}
