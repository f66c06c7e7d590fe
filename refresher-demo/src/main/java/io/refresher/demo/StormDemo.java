package io.refresher.demo;

import io.refresher.client.redisson.RedissonDriver;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.refresher.access.HotSetView;
import io.refresher.client.RefresherClient;
import io.refresher.embedded.EmbeddedPostgreSql;
import io.refresher.embedded.EmbeddedRedis;
import io.refresher.embedded.FreePorts;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.redisson.api.RBatch;
import org.redisson.api.RFuture;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

/**
 * The storm demo ({@code demo --storm}): Redis loses everything while a thousand keys are hot, and
 * the service refills them hottest first, at the database's load bound.
 *
 * <p>Readers read {@code product:1} .. {@code product:N} through the client library with Zipf
 * popularity (rank r is read in proportion to 1/r; product:1 is the most read); a template covers
 * the keys, and the reads alone make them hot. The generated configuration bounds the database to
 * {@code database.maxQueriesPerSecond} source queries per second and saves popularity to
 * PostgreSQL every 2 s. After {@code lossAt} seconds the embedded Redis is SIGKILLed and started
 * again, empty, on the same port. Every second the demo prints what came back: keys, keys per
 * second, the share of the top 10% and of the bottom 50% by popularity, the source queries the
 * database counted (pg_stat_statements, against its own clock) against the bound, and the
 * service's own {@code GET /v1/prewarm}.
 */
final class StormDemo {

  /** Long enough that nothing is refreshed twice before the loss, nor during the refill. */
  static final Duration PRODUCT_TTL = Duration.ofSeconds(30);
  /** The product source sleeps 0.2 s: at the bound, bound / 5 queries run at once. */
  private static final double QUERY_SECONDS = 0.2;
  private static final long TICK_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
  private static final long SECOND = TimeUnit.SECONDS.toNanos(1);
  private static final long MICROS = TimeUnit.SECONDS.toMicros(1);
  private static final ObjectMapper JSON = new ObjectMapper();

  private final StormOptions options;
  private final PrintStream out;
  /** In popularity order: {@code keys.get(0)} is product:1, the most read. */
  private final List<String> keys;
  private final double[] zipf;

  private final AtomicBoolean stop = new AtomicBoolean();
  private final AtomicLong readsBefore = new AtomicLong();
  private final AtomicLong hotMisses = new AtomicLong();
  private final AtomicLong coldStartMisses = new AtomicLong();
  private final AtomicLong readsAfter = new AtomicLong();
  private final AtomicLong refillMisses = new AtomicLong();
  private final AtomicLong missesAfterBack = new AtomicLong();
  private final Map<String, Long> foundBefore = new ConcurrentHashMap<>();
  private final Map<String, Long> foundAfter = new ConcurrentHashMap<>();
  /** When the kill began; reads that ended before it saw the old Redis. */
  private volatile long killNanos = Long.MAX_VALUE;
  /** When the new Redis accepted connections; reads that began after it see only the new one. */
  private volatile long backNanos = Long.MAX_VALUE;
  private volatile HotSetView hotSet;

  StormDemo(StormOptions options, PrintStream out) {
    this.options = options;
    this.out = out;
    List<String> names = new ArrayList<>(options.keys());
    double[] cumulative = new double[options.keys()];
    double sum = 0;
    for (int rank = 1; rank <= options.keys(); rank++) {
      names.add("product:" + rank);
      sum += 1.0 / rank;
      cumulative[rank - 1] = sum;
    }
    for (int i = 0; i < cumulative.length; i++) {
      cumulative[i] /= sum;
    }
    this.keys = List.copyOf(names);
    this.zipf = cumulative;
  }

  /** The values set over demo.yml in the generated configuration. */
  List<ConfigValue> configValues() {
    // Enough workers for the bound's worth of 0.2 s queries at once, with room.
    int workers = Math.max(8, (int) Math.ceil(options.bound() * QUERY_SECONDS * 1.5));
    return List.of(
        ConfigValue.of(options.bound(), "database", "maxQueriesPerSecond"),
        ConfigValue.of("30s", "database", "maxWait"),
        // The audit off: the storm's queries are counted, and the refill has the bound to itself.
        ConfigValue.of(0, "database", "auditSamplesPerSecond"),
        // The rate wait runs under the key's lock and its concurrency slot: maxWait and a source's
        // timeout must fit in the lease, or the service refuses to start.
        ConfigValue.of("40s", "refresh", "lockLease"),
        ConfigValue.of("2s", "access", "snapshotInterval"),
        // A long half-life and a low threshold: popularity is known a few seconds after reads start
        // even for the least read keys (product:1000 is read about 0.5 times per second), and it
        // barely decays between the last snapshot and the refill.
        ConfigValue.of("30s", "access", "halfLife"),
        ConfigValue.of(0.05, "access", "hotThreshold"),
        ConfigValue.of("30s", "access", "coldAfter"),
        ConfigValue.of(workers, "scheduler", "workers"));
  }

  StormReport run() throws Exception {
    DemoServers servers = DemoServers.start(out);
    EmbeddedRedis redis = servers.redis();
    String dbUrl = servers.dbUrl();
    Demo.seed(dbUrl);
    seedMore(dbUrl, options.keys());

    int httpPort = FreePorts.next();
    String token = UUID.randomUUID().toString();
    List<ConfigValue> values = configValues();
    Path config = Demo.writeConfig(redis.url(), dbUrl, httpPort, FreePorts.next(), token, values);
    out.println("Starting the Refresher service on http://127.0.0.1:" + httpPort + " with demo.yml and");
    out.println("  " + String.join(", ", values.stream().map(v -> v.name() + ": " + v.value()).toList()));
    DemoApplication app = new DemoApplication();
    app.run("server", config.toString());
    hotSet = app.parts().hotSet();

    AdminClient admin = new AdminClient(httpPort, token);
    admin.awaitReady(Duration.ofSeconds(60));
    admin.put(
        "/v1/templates/products",
        "{\"pattern\":\"product:{id}\",\"source\":\"product-by-id\",\"ttl\":\"" + PRODUCT_TTL + "\"}");
    out.printf(
        "Template 'products': product:{id} is computed by product-by-id (a 0.2 s query), TTL %d s.%n"
            + "Readers (the client library, %d threads, %,d reads/s) read product:1..product:%d with Zipf popularity"
            + " (product:r ∝ 1/r);%n  the reads alone make them hot. After %d s Redis is SIGKILLed and started"
            + " again empty on the same port.%n%n",
        PRODUCT_TTL.getSeconds(),
        options.readers(),
        options.rate(),
        options.keys(),
        options.lossAt());

    RedissonClient redisson = Demo.readerClient(redis.url());
    RefresherClient client = RefresherClient.builder(RedissonDriver.of(redisson)).flushInterval(Duration.ofMillis(250)).build();
    ExecutorService readers = startReaders(client);
    try (SourceQueries queries = new SourceQueries(dbUrl)) {
      return storm(redis, redisson, admin, dbUrl, queries);
    } finally {
      stop.set(true);
      readers.shutdown();
      readers.awaitTermination(10, TimeUnit.SECONDS);
      client.close();
      redisson.shutdown();
      out.println("Stopping the service, then Redis and PostgreSQL...");
      app.stopServer();
      servers.close();
    }
  }

  private StormReport storm(
      EmbeddedRedis redis, RedissonClient redisson, AdminClient admin, String dbUrl, SourceQueries queries)
      throws Exception {
    // Before the loss: popularity builds up, the keys become hot, the database holds the bound.
    out.println(
        "  time | reads/s  misses: not in Redis yet  while hot | hot set  in Redis | db: source q/s  bound"
            + " | popularity saved");
    long start = System.nanoTime();
    long startMicros = queries.nowMicros();
    long lastReads = 0;
    long lastCold = 0;
    long lastHot = 0;
    for (int second = 1; second <= options.lossAt(); second++) {
      LockSupport.parkNanos(start + second * SECOND - System.nanoTime());
      // The second that just ended, by the database's clock.
      int started = queries.startedBetween(startMicros + (second - 1) * MICROS, startMicros + second * MICROS);
      long reads = readsBefore.get();
      long cold = coldStartMisses.get();
      long hot = hotMisses.get();
      out.printf(
          Locale.ROOT,
          "  %3ds |  %6d  %22d %10d |  %6d   %6d |           %6d  %5d | %16d%n",
          second,
          reads - lastReads,
          cold - lastCold,
          hot - lastHot,
          hotSet.size(),
          present(redisson, keys).size(),
          started,
          options.bound(),
          savedPopularity(dbUrl));
      lastReads = reads;
      lastCold = cold;
      lastHot = hot;
    }

    // The loss.
    List<Integer> lost = present(redisson, keys);
    long saved = savedPopularity(dbUrl);
    long pid = redis.pid();
    long killMicros = queries.nowMicros();
    int maxBefore = queries.maxInAnySecond(startMicros, killMicros);
    killNanos = System.nanoTime();
    redis.kill();
    redis.startAgainEmpty();
    backNanos = System.nanoTime();
    Instant backAt = Instant.now();
    long backMicros = queries.nowMicros();
    long restartMillis = TimeUnit.NANOSECONDS.toMillis(backNanos - killNanos);
    out.printf(
        "  ---- %d s: Redis (pid %d) SIGKILLed and started again empty on port %d in %d ms; %,d popular product"
            + " keys lost, popularity of %,d saved in PostgreSQL ----%n",
        options.lossAt(),
        pid,
        redis.port(),
        restartMillis,
        lost.size(),
        saved);

    // The refill, second by second after Redis came back.
    int top = Math.max(1, (int) Math.ceil(lost.size() / 10.0));
    int bottomFrom = lost.size() - lost.size() / 2;
    out.printf(
        "  Every second since Redis came back: lost keys back (of %,d), the share back of the top 10%% (the %d most"
            + " read)%n  and of the bottom 50%% (the %d least read), the source queries the database started in that"
            + " second, and GET /v1/prewarm.%n",
        lost.size(),
        top,
        lost.size() - bottomFrom);
    out.println(
        "  since Redis back | keys back  back/s | top 10%  bottom 50% | db: source q/s  bound |"
            + " GET /v1/prewarm: state   done   left");
    double[] backAtSeconds = new double[lost.size()];
    Arrays.fill(backAtSeconds, -1);
    int backCount = 0;
    int lastBack = 0;
    String state = "idle";
    long prewarmTotal = 0;
    double refillStarted = -1;
    long refillSeconds = Math.max(60, 3L * lost.size() / options.bound());
    long deadline = backNanos + TimeUnit.SECONDS.toNanos(refillSeconds);
    if (options.seconds() > 0) {
      deadline = Math.min(deadline, start + TimeUnit.SECONDS.toNanos(options.seconds()));
    }
    int second = 0;
    for (long tick = 1; ; tick++) {
      LockSupport.parkNanos(backNanos + tick * TICK_NANOS - System.nanoTime());
      backCount += pollBack(redisson, lost, backAtSeconds);
      long now = System.nanoTime();
      if (now - backNanos < (second + 1) * SECOND && now < deadline) {
        continue;
      }
      second++;
      int started = queries.startedBetween(backMicros + (second - 1) * MICROS, backMicros + second * MICROS);
      JsonNode prewarm = prewarm(admin);
      String done = "-";
      String left = "-";
      String shown = "(no answer)";
      if (prewarm != null) {
        shown = prewarm.path("state").asText("?");
        done = Long.toString(prewarm.path("done").asLong());
        left = Long.toString(prewarm.path("left").asLong());
        Instant startedAt =
            prewarm.hasNonNull("startedAt") ? Instant.parse(prewarm.get("startedAt").asText()) : Instant.MIN;
        // Until the service notices the loss it may still report the refill of its start.
        if (!startedAt.isBefore(backAt)) {
          state = shown;
          prewarmTotal = prewarm.path("total").asLong();
          if (refillStarted < 0) {
            refillStarted = Duration.between(backAt, startedAt).toMillis() / 1000.0;
          }
        }
      }
      out.printf(
          Locale.ROOT,
          "  %15.1fs | %9d  %6d | %6.1f%%  %9.1f%% |           %6d  %5d | %22s %6s %6s%n",
          (now - backNanos) / (double) SECOND,
          backCount,
          backCount - lastBack,
          100.0 * backBetween(backAtSeconds, 0, top) / top,
          100.0 * backBetween(backAtSeconds, bottomFrom, lost.size()) / Math.max(1, lost.size() - bottomFrom),
          started,
          options.bound(),
          shown,
          done,
          left);
      lastBack = backCount;
      boolean finished = backCount == lost.size() && "finished".equals(state);
      if (finished || now >= deadline) {
        break;
      }
    }
    long endMicros = queries.nowMicros();
    return new StormReport(
        options.lossAt(),
        restartMillis,
        lost.size(),
        saved,
        prewarmTotal,
        refillStarted,
        latest(backAtSeconds, 0, top),
        lost.size() - bottomFrom,
        backBy(backAtSeconds, bottomFrom, lost.size(), latest(backAtSeconds, 0, top)),
        quantile(backAtSeconds, bottomFrom, lost.size(), 0),
        quantile(backAtSeconds, bottomFrom, lost.size(), 0.5),
        latest(backAtSeconds, 0, lost.size()),
        backCount,
        state,
        queries.maxInAnySecond(backMicros, endMicros),
        maxBefore,
        options.bound(),
        queries.startedBetween(backMicros, endMicros),
        queries.seen(),
        queries.completed(),
        readsBefore.get(),
        hotMisses.get(),
        coldStartMisses.get(),
        readsAfter.get(),
        refillMisses.get(),
        missesAfterBack.get());
  }

  /** Looks up the lost keys not back yet; notes when each is found; returns how many were. */
  private int pollBack(RedissonClient redisson, List<Integer> lost, double[] backAtSeconds) {
    List<Integer> missing = new ArrayList<>();
    for (int i = 0; i < lost.size(); i++) {
      if (backAtSeconds[i] < 0) {
        missing.add(i);
      }
    }
    if (missing.isEmpty()) {
      return 0;
    }
    List<Boolean> exists;
    try {
      exists = exist(redisson, missing.stream().map(i -> keys.get(lost.get(i))).toList());
    } catch (RuntimeException e) {
      return 0; // Redis not answering yet; the next tick asks again.
    }
    double at = (System.nanoTime() - backNanos) / (double) SECOND;
    int found = 0;
    for (int j = 0; j < missing.size(); j++) {
      if (exists.get(j)) {
        backAtSeconds[missing.get(j)] = at;
        found++;
      }
    }
    return found;
  }

  private static int backBetween(double[] backAtSeconds, int from, int to) {
    int back = 0;
    for (int i = from; i < to; i++) {
      back += backAtSeconds[i] >= 0 ? 1 : 0;
    }
    return back;
  }

  /** When the last of the range was back; -1 if one is not. */
  private static double latest(double[] backAtSeconds, int from, int to) {
    double latest = -1;
    for (int i = from; i < to; i++) {
      if (backAtSeconds[i] < 0) {
        return -1;
      }
      latest = Math.max(latest, backAtSeconds[i]);
    }
    return latest;
  }

  /** How many of the range were back by {@code at}; 0 if {@code at} is -1 (never). */
  private static int backBy(double[] backAtSeconds, int from, int to, double at) {
    int back = 0;
    for (int i = from; i < to && at >= 0; i++) {
      back += backAtSeconds[i] >= 0 && backAtSeconds[i] <= at ? 1 : 0;
    }
    return back;
  }

  /**
   * When the first {@code fraction} of the range was back (0: the first key; 0.5: half of them);
   * -1 if that many never were.
   */
  private static double quantile(double[] backAtSeconds, int from, int to, double fraction) {
    double[] back = Arrays.stream(backAtSeconds, from, to).filter(at -> at >= 0).sorted().toArray();
    int needed = Math.max(1, (int) Math.ceil(fraction * (to - from)));
    return back.length < needed ? -1 : back[needed - 1];
  }

  private static JsonNode prewarm(AdminClient admin) {
    try {
      // {"prewarm": {state, done, left, ...}, "load": {datasource: {...}}}
      return JSON.readTree(admin.get("/v1/prewarm", Duration.ofSeconds(1))).get("prewarm");
    } catch (IOException e) {
      return null;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    }
  }

  /** The indices (popularity ranks - 1) of the keys present in Redis. */
  private static List<Integer> present(RedissonClient redisson, List<String> keys) {
    List<Boolean> exists = exist(redisson, keys);
    List<Integer> present = new ArrayList<>();
    for (int i = 0; i < keys.size(); i++) {
      if (exists.get(i)) {
        present.add(i);
      }
    }
    return present;
  }

  /** {@code EXISTS} of each key, in one pipelined batch. */
  private static List<Boolean> exist(RedissonClient redisson, List<String> keys) {
    RBatch batch = redisson.createBatch();
    List<RFuture<Boolean>> futures = new ArrayList<>(keys.size());
    for (String key : keys) {
      futures.add(batch.getBucket(key, StringCodec.INSTANCE).isExistsAsync());
    }
    batch.execute();
    return futures.stream().map(future -> future.toCompletableFuture().join()).toList();
  }

  private ExecutorService startReaders(RefresherClient client) {
    ExecutorService pool = Executors.newFixedThreadPool(options.readers(), runnable -> {
      Thread thread = new Thread(runnable, "demo-reader");
      thread.setDaemon(true);
      return thread;
    });
    long intervalNanos = SECOND * options.readers() / Math.max(1, options.rate());
    for (int i = 0; i < options.readers(); i++) {
      pool.execute(() -> readLoop(client, intervalNanos));
    }
    return pool;
  }

  private void readLoop(RefresherClient client, long intervalNanos) {
    long next = System.nanoTime();
    while (!stop.get()) {
      read(client, keys.get(zipfIndex(ThreadLocalRandom.current().nextDouble())));
      next += intervalNanos;
      long now = System.nanoTime();
      if (next < now - SECOND / 10) {
        next = now; // Fell behind (Redis was away): carry on at the rate, no burst to catch up.
      }
      long wait = next - now;
      if (wait > 0) {
        LockSupport.parkNanos(wait);
      }
    }
  }

  /** The index of a key drawn with Zipf popularity: index i (rank i + 1) with probability ∝ 1/(i + 1). */
  private int zipfIndex(double uniform) {
    int index = Arrays.binarySearch(zipf, uniform);
    return Math.min(zipf.length - 1, index >= 0 ? index : -index - 1);
  }

  private void read(RefresherClient client, String key) {
    long startedAt = System.nanoTime();
    String value;
    try {
      value = client.get(key);
    } catch (RuntimeException e) {
      return; // Redis is away: the read failed, as it would in an application.
    }
    long endedAt = System.nanoTime();
    if (endedAt < killNanos) {
      readsBefore.incrementAndGet();
      if (value != null) {
        foundBefore.putIfAbsent(key, startedAt);
        return;
      }
      // A miss breaks the promise only if the key was found before this read began and is hot.
      Long foundAt = foundBefore.get(key);
      if (foundAt != null && foundAt < startedAt && hotSet.isHot(key)) {
        hotMisses.incrementAndGet();
      } else {
        coldStartMisses.incrementAndGet();
      }
    } else if (startedAt >= backNanos) {
      readsAfter.incrementAndGet();
      if (value != null) {
        foundAfter.putIfAbsent(key, startedAt);
        return;
      }
      Long foundAt = foundAfter.get(key);
      if (foundAt != null && foundAt < startedAt) {
        missesAfterBack.incrementAndGet();
      } else {
        refillMisses.incrementAndGet();
      }
    }
    // Reads during the kill and restart belong to neither side.
  }

  /** Product keys whose popularity the service saved in PostgreSQL. */
  private static long savedPopularity(String dbUrl) throws SQLException {
    try (Connection connection = DriverManager.getConnection(dbUrl, EmbeddedPostgreSql.USER, EmbeddedPostgreSql.PASSWORD);
        Statement statement = connection.createStatement();
        ResultSet rs =
            statement.executeQuery("SELECT count(*) FROM refresher.refresher_popularity WHERE key LIKE 'product:%'")) {
      rs.next();
      return rs.getLong(1);
    }
  }

  /** Products 11..keys beside the demo's ten. */
  private static void seedMore(String dbUrl, int keys) throws SQLException {
    try (Connection connection = DriverManager.getConnection(dbUrl, EmbeddedPostgreSql.USER, EmbeddedPostgreSql.PASSWORD);
        Statement statement = connection.createStatement()) {
      statement.execute(
          "INSERT INTO demo_product SELECT g, 'Product ' || g, (ARRAY['laptops', 'phones', 'tablets'])[1 + g % 3],"
              + " 10 + g % 990 FROM generate_series(11, " + keys + ") g");
    }
  }
}
