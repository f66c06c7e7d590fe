package io.refresher.bench;

import com.codahale.metrics.Meter;
import com.codahale.metrics.Snapshot;
import io.refresher.RefresherApplication;
import io.refresher.embedded.EmbeddedPostgreSql;
import io.refresher.embedded.EmbeddedRedis;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
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
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.concurrent.TimeUnit;
import org.redisson.api.RedissonClient;

/**
 * Scale benchmark of the refresh path on this machine: the real service in-process on embedded
 * Redis and PostgreSQL, a trivial source (one primary-key lookup).
 *
 * <ol>
 *   <li><b>burst</b>: {@code --keys} registrations become due at once; how fast are they all
 *       refreshed (refreshes/s)?
 *   <li><b>steady</b>: with TTL {@code --ttl} and TTR {@code --ttr}, every key is refreshed every
 *       {@code ttl - ttr}; over {@code --steady} seconds: refreshes/s, refresh lag (p50/p99/max of
 *       the last minute), Redis commands per refresh, PostgreSQL rows written per refresh.
 *   <li><b>registered</b>: {@code --registered} more keys are registered with a far due time;
 *       heap used after GC, before and after.
 * </ol>
 *
 * <p>Run: {@code mvn -B -ntp -DskipTests package && java -Xmx1g -jar refresher-bench/target/refresher-bench.jar
 * --keys 50000 --ttl 10s --ttr 5s --steady 70 --registered 1000000}
 */
public final class RefreshThroughputBench {

  private RefreshThroughputBench() {}

  public static void main(String[] args) throws Exception {
    Options options = Options.parse(args);
    System.out.println("options: " + options);
    EmbeddedPostgreSql postgres = EmbeddedPostgreSql.start();
    EmbeddedRedis redis = EmbeddedRedis.start();
    String dbUrl = postgres.createDatabase("refresher_bench");
    try (Connection db = DriverManager.getConnection(dbUrl, "postgres", "postgres");
        Statement sql = db.createStatement()) {
      sql.execute("CREATE TABLE bench_item (id bigint PRIMARY KEY, v text NOT NULL)");
      sql.execute(
          "INSERT INTO bench_item SELECT i, 'item-' || i FROM generate_series(1, "
              + (options.keys + options.registered) + ") i");
    }

    RefresherApplication app = new RefresherApplication();
    app.run("server", writeConfig(redis.url(), dbUrl, options).toString());
    var parts = app.parts();

    try (Connection db = DriverManager.getConnection(dbUrl, "postgres", "postgres");
        Statement sql = db.createStatement()) {
      register(sql, 1, options.keys, options.ttl);

      // Burst: every key due now.
      Meter refreshed = app.metrics().meter("refresher.refresh.refreshed");
      long before = refreshed.getCount();
      long started = System.nanoTime();
      int added = parts.reconciler().reconcile();
      while (refreshed.getCount() - before < options.keys) {
        TimeUnit.MILLISECONDS.sleep(20);
        if (System.nanoTime() - started > TimeUnit.MINUTES.toNanos(10)) {
          throw new IllegalStateException("burst did not finish in 10 minutes");
        }
      }
      double burstSeconds = (System.nanoTime() - started) / 1e9;
      System.out.printf(
          Locale.ROOT,
          "burst: %d keys due at once (%d added to the due index) refreshed in %.2f s = %.0f refreshes/s%n",
          options.keys,
          added,
          burstSeconds,
          options.keys / burstSeconds);

      // Steady state: let the burst's timing spread settle, then measure.
      TimeUnit.MILLISECONDS.sleep(options.ttl.toMillis());
      long redisCommandsBefore = clientCommands(parts.redisson());
      Map<String, Long> callsBefore = commandCalls(parts.redisson());
      long rowsWrittenBefore = rowsWritten(sql);
      long refreshesBefore = refreshed.getCount();
      long steadyStart = System.nanoTime();
      TimeUnit.SECONDS.sleep(options.steadySeconds);
      double steadySeconds = (System.nanoTime() - steadyStart) / 1e9;
      long refreshes = refreshed.getCount() - refreshesBefore;
      long commands = clientCommands(parts.redisson()) - redisCommandsBefore;
      long rows = rowsWritten(sql) - rowsWrittenBefore;
      Snapshot lag = app.metrics().timer("refresher.refresh.lag").getSnapshot();
      Map<String, Long> callsAfter = commandCalls(parts.redisson());
      StringBuilder perCommand = new StringBuilder();
      callsAfter.forEach(
          (command, total) -> {
            double perRefresh = (total - callsBefore.getOrDefault(command, 0L)) / (double) Math.max(1, refreshes);
            if (perRefresh >= 0.005) {
              perCommand.append(String.format(Locale.ROOT, " %s=%.2f", command, perRefresh));
            }
          });
      System.out.println("redis calls per refresh (scripts' inner commands included):" + perCommand);
      if (options.steadySeconds < 60) {
        System.out.println("note: the lag figures cover the last minute, burst included; use --steady 60 or more");
      }
      System.out.printf(
          Locale.ROOT,
          "steady: %d keys, ttl %s, ttr %s: %.0f refreshes/s over %.0f s (expected %.0f/s); lag p50 %.1f ms,"
              + " p99 %.1f ms, max %.1f ms (last minute); %.2f Redis requests per refresh (commands sent by clients, scripts count once; includes claims and reschedules);"
              + " %d PostgreSQL rows written (%.4f per refresh); failed: %d%n",
          options.keys,
          options.ttl,
          options.ttr,
          refreshes / steadySeconds,
          steadySeconds,
          options.keys / (double) options.ttl.minus(options.ttr).toSeconds(),
          lag.getMedian() / 1e6,
          lag.get99thPercentile() / 1e6,
          lag.getMax() / 1e6,
          commands / (double) Math.max(1, refreshes),
          rows,
          rows / (double) Math.max(1, refreshes),
          app.metrics().meter("refresher.refresh.failed").getCount());

      if (options.registered > 0) {
        long heapBefore = usedHeapAfterGc();
        register(sql, options.keys + 1, options.registered, Duration.ofHours(1));
        // In the due index with a far due time, like keys that are registered but not due now.
        long far = System.currentTimeMillis() + Duration.ofHours(1).toMillis();
        List<String> page = new ArrayList<>();
        for (long i = options.keys + 1; i <= options.keys + options.registered; i++) {
          page.add("item:" + i);
          if (page.size() == 10_000) {
            parts.dueIndex().addMissing(page, far);
            page.clear();
          }
        }
        parts.dueIndex().addMissing(page, far);
        TimeUnit.SECONDS.sleep(5);
        long heapAfter = usedHeapAfterGc();
        System.out.printf(
            Locale.ROOT,
            "registered: %d more keys (%d in the due index): heap used after GC %.1f MB -> %.1f MB (+%.1f MB);"
                + " registry count %d%n",
            options.registered,
            parts.dueIndex().size(),
            heapBefore / 1e6,
            heapAfter / 1e6,
            (heapAfter - heapBefore) / 1e6,
            count(sql, "SELECT count(*) FROM refresher.refresher_key"));
      }
    }
    app.stopServer();
    redis.close();
    postgres.close();
    System.exit(0);
  }

  private static void register(Statement sql, long from, long count, Duration ttl) throws SQLException {
    sql.execute(
        "INSERT INTO refresher.refresher_key (key, source, params, ttl_ms, policy, created_at, updated_at) "
            + "SELECT 'item:' || i, 'item', jsonb_build_object('id', i), "
            + ttl.toMillis()
            + ", 'always', now(), now() FROM generate_series("
            + from
            + ", "
            + (from + count - 1)
            + ") i");
  }

  /**
   * Commands that clients sent (each one a request/response on the wire), as opposed to the
   * commands scripts ran inside Redis: EVALSHA/EVAL plus the plain commands the service sends,
   * from INFO commandstats.
   */
  private static long clientCommands(RedissonClient redisson) {
    Map<String, Long> calls = commandCalls(redisson);
    long total = 0;
    // get, exists, set... also run inside scripts, so only commands the service sends alone count here.
    for (String command : List.of("evalsha", "eval", "zscore", "zcard", "hgetall", "pttl")) {
      total += calls.getOrDefault(command, 0L);
    }
    return total;
  }

  /** Calls per command since Redis started, from INFO commandstats (script-internal ones included). */
  static Map<String, Long> commandCalls(RedissonClient redisson) {
    Map<String, String> stats =
        redisson.getRedisNodes(org.redisson.api.redisnode.RedisNodes.SINGLE)
            .getInstance()
            .info(org.redisson.api.redisnode.RedisNode.InfoSection.COMMANDSTATS);
    Map<String, Long> calls = new java.util.TreeMap<>();
    stats.forEach(
        (name, line) -> {
          Matcher matcher = CALLS.matcher(line);
          if (matcher.find()) {
            calls.put(name.replace("cmdstat_", ""), Long.parseLong(matcher.group(1)));
          }
        });
    return calls;
  }

  private static final Pattern CALLS = Pattern.compile("calls=(\\d+)");

  private static long rowsWritten(Statement sql) throws SQLException, InterruptedException {
    // Backends report table statistics at the end of a transaction, at most every 500 ms: give
    // this connection's own earlier writes time to arrive before reading.
    count(sql, "SELECT 1");
    TimeUnit.MILLISECONDS.sleep(1_000);
    return count(
        sql,
        "SELECT coalesce(sum(n_tup_ins + n_tup_upd + n_tup_del), 0) FROM pg_stat_user_tables WHERE schemaname = 'refresher'"
            + " AND relname NOT LIKE 'qrtz%'");
  }

  private static long count(Statement sql, String query) throws SQLException {
    try (ResultSet rs = sql.executeQuery(query)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private static long usedHeapAfterGc() throws InterruptedException {
    for (int i = 0; i < 3; i++) {
      System.gc();
      TimeUnit.MILLISECONDS.sleep(200);
    }
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
  }

  private static Path writeConfig(String redisUrl, String dbUrl, Options options) throws Exception {
    String template;
    try (InputStream in = RefreshThroughputBench.class.getResourceAsStream("/bench.yml")) {
      template = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    Path file = Files.createTempFile("refresher-bench", ".yml");
    file.toFile().deleteOnExit();
    Files.writeString(
        file,
        template
            .replace("@REDIS_URL@", redisUrl)
            .replace("@DB_URL@", dbUrl)
            .replace("@TTR@", options.ttr.toMillis() + "ms")
            .replace("@WORKERS@", Integer.toString(options.workers))
            .replace("@NETTY@", Integer.toString(options.nettyThreads)));
    return file;
  }

  private record Options(
      int keys, Duration ttl, Duration ttr, int workers, int nettyThreads, int steadySeconds, int registered) {
    static Options parse(String[] args) {
      int keys = 20_000;
      Duration ttl = Duration.ofSeconds(10);
      Duration ttr = Duration.ofSeconds(5);
      int workers = 16;
      int nettyThreads = 0;
      int steady = 70;
      int registered = 0;
      for (int i = 0; i + 1 < args.length; i += 2) {
        String value = args[i + 1];
        switch (args[i]) {
          case "--keys" -> keys = Integer.parseInt(value);
          case "--ttl" -> ttl = parseDuration(value);
          case "--ttr" -> ttr = parseDuration(value);
          case "--workers" -> workers = Integer.parseInt(value);
          case "--netty-threads" -> nettyThreads = Integer.parseInt(value);
          case "--steady" -> steady = Integer.parseInt(value);
          case "--registered" -> registered = Integer.parseInt(value);
          default -> throw new IllegalArgumentException("unknown option " + args[i]);
        }
      }
      return new Options(keys, ttl, ttr, workers, nettyThreads, steady, registered);
    }

    private static Duration parseDuration(String text) {
      return Duration.ofMillis(io.dropwizard.util.Duration.parse(text).toMilliseconds());
    }
  }
}
