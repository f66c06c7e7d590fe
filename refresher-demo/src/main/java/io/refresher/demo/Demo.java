package io.refresher.demo;

import io.refresher.client.redisson.RedissonDriver;
import com.codahale.metrics.Counter;
import com.codahale.metrics.Meter;
import io.refresher.client.RefresherClient;
import io.refresher.embedded.EmbeddedPostgreSql;
import io.refresher.embedded.EmbeddedRedis;
import io.refresher.embedded.FreePorts;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.URLEncoder;
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
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.redisson.config.Config;

/**
 * One demo run: embedded servers, sample data, the real service, a key template and registered
 * keys, simulated readers, and a line of figures per second.
 *
 * <p>Readers read through the client library ({@code refresher-client}): a plain {@code GET}, with
 * every read counted and reported to the service in batches. Nobody registers the product keys: a
 * template ({@code product:{id}}) tells the service how to compute them, and the reads alone make
 * them hot. Halfway through, the readers move from products 1-4 to products 5-8: the new ones are
 * promoted, the old ones cool down, are demoted and expire. A tenth of the reads go to one key
 * cached the usual way (cache-aside: on a miss the reader runs the query itself and sets the key
 * with a TTL), so the two behaviours can be compared side by side.
 */
final class Demo {

  private static final Duration PRODUCT_TTL = Duration.ofSeconds(5);
  private static final Duration CACHE_ASIDE_TTL = Duration.ofSeconds(10);
  private static final List<String> FIRST_PRODUCTS = List.of("product:1", "product:2", "product:3", "product:4");
  private static final List<String> LATER_PRODUCTS = List.of("product:5", "product:6", "product:7", "product:8");
  private static final List<String> CATEGORIES = List.of("category:laptops:top5", "category:phones:top5");
  private static final String CACHE_ASIDE_KEY = "cache-aside:product:9";
  private static final String CACHE_ASIDE_SQL =
      "SELECT json_build_object('id', id, 'name', name, 'price', price)::text AS demo_cacheaside_query,"
          + " pg_sleep(0.2) FROM demo_product WHERE id = 9";

  private final DemoOptions options;
  private final PrintStream out;
  private volatile List<String> readKeys = List.of();

  Demo(DemoOptions options, PrintStream out) {
    this.options = options;
    this.out = out;
  }

  DemoReport run() throws Exception {
    DemoServers servers = DemoServers.start(out);
    EmbeddedRedis redis = servers.redis();
    String dbUrl = servers.dbUrl();
    seed(dbUrl);

    int httpPort = FreePorts.next();
    String token = UUID.randomUUID().toString();
    Path config = writeConfig(redis.url(), dbUrl, httpPort, FreePorts.next(), token);
    out.println("Starting the Refresher service on http://127.0.0.1:" + httpPort + " ...");
    DemoApplication app = new DemoApplication();
    app.run("server", config.toString());

    AdminClient admin = new AdminClient(httpPort, token);
    admin.awaitReady(Duration.ofSeconds(60));
    registerKeys(admin);
    readKeys = concat(FIRST_PRODUCTS, CATEGORIES);

    RedissonClient redisson = readerClient(redis.url());
    RefresherClient client =
        RefresherClient.builder(RedissonDriver.of(redisson)).flushInterval(Duration.ofMillis(250)).build();
    DemoReaders readers =
        new DemoReaders(
            client,
            redisson,
            dbUrl,
            options.readers(),
            options.rate(),
            () -> readKeys,
            new DemoReaders.UsualWay(CACHE_ASIDE_KEY, CACHE_ASIDE_SQL, CACHE_ASIDE_TTL, 10));
    DemoReport report;
    try {
      report = report(dbUrl, app, redisson, readers).withAudit(auditTotals(admin));
    } finally {
      readers.close();
    }
    client.close();
    redisson.shutdown();
    out.println("Stopping the service, then Redis and PostgreSQL...");
    app.stopServer();
    servers.close();
    return report;
  }

  /** The consistency audit's samples and mismatches over the run, all sources together. */
  private static long[] auditTotals(AdminClient admin) throws IOException, InterruptedException {
    com.fasterxml.jackson.databind.JsonNode report =
        new com.fasterxml.jackson.databind.ObjectMapper().readTree(admin.get("/v1/audit", Duration.ofSeconds(10)));
    long samples = 0;
    long mismatches = 0;
    for (com.fasterxml.jackson.databind.JsonNode source : report.path("sources")) {
      samples += source.path("total").path("samples").asLong();
      mismatches += source.path("total").path("mismatches").asLong();
    }
    return new long[] {samples, mismatches};
  }

  private void registerKeys(AdminClient admin) throws IOException, InterruptedException {
    out.println("Through the admin API:");
    admin.put(
        "/v1/templates/products",
        "{\"pattern\":\"product:{id}\",\"source\":\"product-by-id\",\"ttl\":\"" + PRODUCT_TTL + "\"}");
    out.printf("  template 'products': any key product:{id} is computed by source product-by-id, TTL %s;%n", PRODUCT_TTL);
    out.println("    nothing is computed yet: a product key is refreshed once reads make it hot.");
    for (String key : CATEGORIES) {
      String category = key.split(":")[1];
      admin.put(
          "/v1/keys/" + URLEncoder.encode(key, StandardCharsets.UTF_8),
          "{\"source\":\"category-top\",\"params\":{\"category\":\"" + category + "\"},\"ttl\":\"PT15S\"}");
    }
    out.printf("  keys %s registered (computed at once, ~200 ms each).%n", String.join(", ", CATEGORIES));
    out.printf(
        "  %s is cached the usual way (cache-aside, 10 s TTL), for comparison.%n", CACHE_ASIDE_KEY);
    out.printf(
        "Readers (the client library: GET, each read counted) read %s and the categories;%n"
            + "  halfway they move to %s.%n%n",
        FIRST_PRODUCTS,
        LATER_PRODUCTS);
  }

  private static List<String> concat(List<String> a, List<String> b) {
    List<String> all = new ArrayList<>(a);
    all.addAll(b);
    return List.copyOf(all);
  }

  private DemoReport report(String dbUrl, DemoApplication app, RedissonClient redisson, DemoReaders readers)
      throws SQLException {
    out.println(
        "  time | reads/s misses | hot set promoted demoted  products 1-4 present | db: source q/s refreshes/s"
            + " | cache-aside: reads/s misses/s db q/s");
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
    Counter promoted = app.metrics().counter("refresher.hot.promoted");
    Counter demoted = app.metrics().counter("refresher.hot.demoted");
    long firstRefreshes = refreshed.getCount();
    long lastRefreshes = firstRefreshes;
    long switchAt = options.seconds() == 0 ? 30 : Math.max(1, options.seconds() / 2);
    int firstProductsPresent = 0;
    long second = 0;
    while (options.seconds() == 0 || second < options.seconds()) {
      second++;
      LockSupport.parkNanos(start + TimeUnit.SECONDS.toNanos(second) - System.nanoTime());
      long reads = readers.reads();
      long misses = readers.hotMisses();
      long source = sourceQueries(dbUrl);
      long refreshes = refreshed.getCount();
      long asideRead = readers.usualReads();
      long asideQuery = asideQueries(dbUrl);
      firstProductsPresent = present(redisson, FIRST_PRODUCTS);
      peakAside = Math.max(peakAside, asideQuery - lastAsideQueries);
      out.printf(
          "  %3ds |  %6d %6d |  %6d   %6d  %6d  %20d |            %4d        %4d |              %6d   %6d  %5d%n",
          second,
          reads - lastReads,
          misses - lastMisses,
          app.parts().hotSet().size(),
          promoted.getCount(),
          demoted.getCount(),
          firstProductsPresent,
          source - lastSource,
          refreshes - lastRefreshes,
          asideRead - lastAsideReads,
          readers.usualMisses() - lastAsideMisses,
          asideQuery - lastAsideQueries);
      if (second % switchAt == 0 && (options.seconds() == 0 || second < options.seconds())) {
        boolean toLater = readKeys.containsAll(FIRST_PRODUCTS);
        readKeys = concat(toLater ? LATER_PRODUCTS : FIRST_PRODUCTS, CATEGORIES);
        out.printf(
            "  ---- readers move to %s: those become hot; %s cool down, are demoted and expire ----%n",
            toLater ? LATER_PRODUCTS : FIRST_PRODUCTS,
            toLater ? FIRST_PRODUCTS : LATER_PRODUCTS);
      }
      lastAsideMisses = readers.usualMisses();
      lastReads = reads;
      lastMisses = misses;
      lastSource = source;
      lastRefreshes = refreshes;
      lastAsideReads = asideRead;
      lastAsideQueries = asideQuery;
    }
    return new DemoReport(
        second,
        readers.reads(),
        readers.hotMisses(),
        readers.coldStartMisses(),
        promoted.getCount(),
        demoted.getCount(),
        FIRST_PRODUCTS.size() - firstProductsPresent,
        lastSource - firstSource,
        lastRefreshes - firstRefreshes,
        readers.usualReads(),
        readers.usualMisses(),
        lastAsideQueries - firstAsideQueries,
        peakAside,
        0,
        0);
  }

  private static int present(RedissonClient redisson, List<String> keys) {
    int present = 0;
    for (String key : keys) {
      if (redisson.getBucket(key, StringCodec.INSTANCE).isExists()) {
        present++;
      }
    }
    return present;
  }

  private static long sourceQueries(String dbUrl) throws SQLException {
    return executions(dbUrl, "demo_product_query") + executions(dbUrl, "demo_category_query");
  }

  private static long asideQueries(String dbUrl) throws SQLException {
    return executions(dbUrl, "demo_cacheaside_query");
  }

  /** Exact executions of statements containing the marker, from pg_stat_statements. */
  static long executions(String dbUrl, String marker) throws SQLException {
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

  static void seed(String dbUrl) throws SQLException {
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

  static Path writeConfig(String redisUrl, String dbUrl, int httpPort, int adminPort, String token)
      throws IOException {
    return writeConfig(redisUrl, dbUrl, httpPort, adminPort, token, List.of());
  }

  /**
   * The service's configuration: {@code demo.yml} with the servers, ports and token filled in, and
   * the given values set over it (none for the plain demo, whose file is then demo.yml as it is).
   */
  static Path writeConfig(
      String redisUrl, String dbUrl, int httpPort, int adminPort, String token, List<ConfigValue> overrides)
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
    if (!overrides.isEmpty()) {
      yaml = ConfigValue.apply(yaml, overrides);
    }
    Path file = Files.createTempFile("refresher-demo", ".yml");
    file.toFile().deleteOnExit();
    Files.writeString(file, yaml);
    return file;
  }

  static RedissonClient readerClient(String url) {
    Config config = new Config();
    config.setCodec(StringCodec.INSTANCE);
    config.useSingleServer().setAddress(url).setConnectionPoolSize(32).setConnectionMinimumIdleSize(8);
    return Redisson.create(config);
  }
}
