package io.refresher.bench;

import com.zaxxer.hikari.HikariDataSource;
import io.refresher.bench.report.BenchReport;
import io.refresher.bench.report.Fmt;
import io.refresher.cache.RedisCacheStore;
import io.refresher.cache.RedisKeyLocks;
import io.refresher.client.protocol.CacheKeys;
import io.refresher.config.RefresherConfiguration;
import java.lang.reflect.Field;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.redisson.Redisson;
import org.redisson.api.BatchOptions;
import org.redisson.api.RBatch;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.redisson.config.Config;
import org.redisson.config.EqualJitterDelay;

/**
 * The ceiling: what this machine's Redis and PostgreSQL can do for the essential work of a refresh
 * without the service, with the service's own clients, pipelined as well as they can be. Three
 * measurements of a fixed time each:
 *
 * <ol>
 *   <li><b>queries</b>: the {@code item} source's primary-key select, as many threads as the
 *       service's source pool has connections, each on a connection of a HikariCP pool built by the
 *       service's {@code DatabaseFactory} with one prepared statement reused. PostgreSQL's JDBC
 *       driver has no pipelining for queries that return rows (a connection runs one statement at
 *       a time and waits for its rows), so the pool's concurrency is all there is.
 *   <li><b>writes</b>: the service's own value + metadata write (the {@code WRITE} script of
 *       {@code RedisCacheStore}: fence check, {@code SET} value {@code PX}, {@code HSET} of the
 *       metadata, {@code PEXPIRE}) by {@code EVALSHA}, in Redisson batches (one pipeline each) of
 *       {@value #BATCH}, {@value #IN_FLIGHT} batches in flight, on a Redisson client built by the
 *       service's {@code RedisFactory}.
 *   <li><b>refreshes</b>: both at once, a minimal refresher: the query threads each query a key's
 *       value and hand it to a writer that sends what has arrived in batches of up to {@value
 *       #BATCH}, as above.
 * </ol>
 *
 * Keys are {@code ceiling:item:<id>} (with the metadata hash {@code refresher:meta:{...}} beside
 * each) on the run's Redis, deleted at the end; the table is in a database of its own.
 */
final class CeilingPhase implements Phase {

  static final String PREFIX = "ceiling:";

  /** Scripts per pipelined batch (system property {@code bench.ceiling.batch}). */
  static final int BATCH = Integer.getInteger("bench.ceiling.batch", 100);

  /** Batches sent and not answered yet, per writer thread ({@code bench.ceiling.inFlight}). */
  static final int IN_FLIGHT = Integer.getInteger("bench.ceiling.inFlight", 8);

  /** Threads that build and send batches in the writes-alone measurement ({@code bench.ceiling.writers}). */
  static final int WRITERS = Integer.getInteger("bench.ceiling.writers", 2);

  /** The keys' TTL: the service's physical TTL is this plus {@code refresh.staleGrace}. */
  private static final Duration TTL = Duration.ofSeconds(10);

  @Override
  public String id() {
    return "ceiling";
  }

  @Override
  public void run(BenchContext context, BenchReport report) throws Exception {
    String load = LoadAverage.now();
    Duration each = Duration.ofSeconds(context.pick(20, 8, 2));
    Duration warmUp = Duration.ofMillis(context.pick(3_000, 2_000, 500));
    int rows = context.pick(100_000, 100_000, 10_000);
    String db = context.newDatabase("bench_ceiling");
    BenchItems.create(db, rows);
    BenchConfig bench = BenchConfig.of(context.redis().url(), db, Duration.ofSeconds(5));
    RefresherConfiguration config = bench.parse();
    int pool = bench.sourcePoolSize();
    Script script = Script.of(config);

    HikariDataSource sources = config.getDatabase().build("ceiling-sources", true, pool);
    RedissonClient redisson = serviceLikeClient(config);
    try {
      String sha = redisson.getScript(StringCodec.INSTANCE).scriptLoad(script.text());
      Work work = new Work(sources, redisson, sha, script, rows, warmUp, each);
      Measured queries = work.queries(pool);
      Measured writes = work.writes();
      Measured refreshes = work.refreshes(pool);
      work.check();
      double ceilingRate = refreshes.perSecond();
      report.ceiling(new BenchReport.Ceiling(ceilingRate, queries.perSecond(), writes.perSecond()));

      int netty = config.getRedis().getNettyThreads() > 0
          ? config.getRedis().getNettyThreads()
          : 2 * Runtime.getRuntime().availableProcessors();
      String redisClient =
          "Redisson client built by the service's `RedisFactory` from bench.yml (pool "
              + config.getRedis().getConnectionPoolSize()
              + " connections, "
              + netty
              + " netty threads, string codec), with Redisson's default retry delay instead of the service's 10 ms"
              + " (with 10 ms, pipelined batches not written within 10 ms on the busy cores were sent twice and failed)";
      String pgClient =
          "HikariCP pool of "
              + pool
              + " built by the service's `DatabaseFactory` as its source pool (read-only, `workers + 2` = "
              + pool
              + " connections)";
      double lower = Math.min(queries.perSecond(), writes.perSecond());
      // Not "ceiling": summary.json's "ceiling" is the run's Ceiling itself; this is how it was measured.
      var section = report.section(id() + "-measurement", "Ceiling: Redis and PostgreSQL without the service");
      section.paragraph(
          "The essential work of a refresh on this machine, without the service: the source query, and one"
              + " write of value and metadata per key. "
              + Fmt.number(each.toSeconds())
              + " s each after "
              + Fmt.millis(warmUp.toMillis())
              + " of warm-up, on the run's Redis and PostgreSQL ("
              + Fmt.number(rows)
              + " rows in `bench_item`, keys drawn uniformly; Redis keys `"
              + PREFIX
              + "item:<id>` and their metadata hashes, deleted afterwards).");
      section.table(
          null,
          List.of("what", "per second", "how"),
          List.of(
              List.of(
                  "source queries alone",
                  Fmt.rate(queries.perSecond()),
                  "`" + BenchItems.QUERY + "` (the `item` source of bench.yml): "
                      + pool
                      + " threads, each holding a connection of a "
                      + pgClient
                      + " and reusing one prepared statement. No pipelining: pgjdbc runs one statement at a time per"
                      + " connection and waits for its rows (its batch API returns no rows), so the concurrency is the"
                      + " pool's"),
              List.of(
                  "value + metadata writes alone",
                  Fmt.rate(writes.perSecond()),
                  script.description()
                      + " by EVALSHA, "
                      + WRITERS
                      + " threads each sending Redisson batches (one pipeline each) of "
                      + BATCH
                      + " scripts, up to "
                      + IN_FLIGHT
                      + " batches in flight per thread; "
                      + redisClient),
              List.of(
                  "**refreshes** (both at once: the ceiling)",
                  "**" + Fmt.rate(refreshes.perSecond()) + "**",
                  "a minimal refresher: the "
                      + pool
                      + " query threads as above hand each key's value to one writer thread, which sends what has"
                      + " arrived as batches of up to "
                      + BATCH
                      + " write scripts, up to "
                      + IN_FLIGHT
                      + " in flight; a refresh counts when its write is answered. "
                      + Fmt.ratio(refreshes.perSecond() / Math.max(1, lower))
                      + " of the lower of the two alone (they share the cores)")));
      section.paragraph(
          "Every throughput below is also given as a fraction of the ceiling, "
              + Fmt.rate(ceilingRate)
              + " refreshes/s. Mean batch in the refresher: "
              + Fmt.number(Math.round(refreshes.meanBatch() * 10) / 10.0)
              + " writes. "
              + LoadAverage.sentence(load));
      CategoryChart chart =
          new CategoryChartBuilder()
              .width(700)
              .height(350)
              .title("Ceiling (per second)")
              .yAxisTitle("per second")
              .build();
      chart.getStyler().setLegendVisible(false);
      chart.addSeries(
          "per second",
          List.of("queries alone", "writes alone", "refreshes (both)"),
          List.of(queries.perSecond(), writes.perSecond(), refreshes.perSecond()));
      section.chart("ceiling", "ceiling", chart);
      section
          .put("loadAverageAtStart", load)
          .put("refreshesPerSecond", refreshes.perSecond())
          .put("queriesPerSecond", queries.perSecond())
          .put("writesPerSecond", writes.perSecond())
          .put("seconds", each.toMillis() / 1000.0)
          .put("warmUpSeconds", warmUp.toMillis() / 1000.0)
          .put("rows", rows)
          .put("sourcePool", pool)
          .put("queryThreads", pool)
          .put("batch", BATCH)
          .put("inFlightBatches", IN_FLIGHT)
          .put("writerThreads", WRITERS)
          .put("meanBatchInRefresher", refreshes.meanBatch())
          .put("writeScript", script.serviceOwn() ? "RedisCacheStore.WRITE" : "stand-in");
      System.out.printf(
          "ceiling: queries %s/s, writes %s/s, refreshes %s/s%n",
          Fmt.rate(queries.perSecond()), Fmt.rate(writes.perSecond()), Fmt.rate(refreshes.perSecond()));
      deleteKeys(redisson, rows);
    } catch (Exception | Error e) {
      try {
        deleteKeys(redisson, rows);
      } catch (Exception cleaning) {
        e.addSuppressed(cleaning);
      }
      throw e;
    } finally {
      redisson.shutdown();
      sources.close();
    }
  }

  /**
   * A Redisson client as the service's {@code RedisFactory} builds it from bench.yml (pool sizes,
   * netty threads, codec, script cache, timeouts, one retry), except the delay before a retry:
   * Redisson's default (1-2 s) instead of the service's 10 ms. Redisson also uses that delay as the
   * time a command has to be written to its connection before it is sent again, and a pipelined
   * batch of scripts on 2 busy cores often takes longer than 10 ms to write: it failed ("Command
   * still hasn't been written into connection"), and a batch sent twice left replies without a
   * command ("No decoder found").
   */
  static RedissonClient serviceLikeClient(RefresherConfiguration config) {
    RedissonClient service = config.getRedis().build();
    Config copy;
    try {
      copy = new Config(service.getConfig());
    } finally {
      service.shutdown();
    }
    copy.useSingleServer().setRetryDelay(new EqualJitterDelay(Duration.ofMillis(1000), Duration.ofSeconds(2)));
    return Redisson.create(copy);
  }

  /**
   * Deletes every key the ceiling may have written: value, metadata and (never created) token
   * counter; fails if any is left.
   */
  static void deleteKeys(RedissonClient redisson, int rows) {
    List<String> names = new ArrayList<>();
    for (long id = 1; id <= rows; id++) {
      String key = key(id);
      names.add(key);
      names.add(CacheKeys.metaKey(key));
      names.add(RedisKeyLocks.tokenCounterName(key));
      if (names.size() >= 3_000 || id == rows) {
        redisson.getKeys().unlink(names.toArray(String[]::new));
        names.clear();
      }
    }
    long left = 0;
    for (String ignored : redisson.getKeys().getKeysByPattern("*" + PREFIX + "item:*", 1000)) {
      left++;
    }
    if (left > 0) {
      throw new IllegalStateException(left + " ceiling keys left in Redis after deleting them");
    }
  }

  static String key(long id) {
    return PREFIX + BenchItems.key(id);
  }

  /** One measurement: completions per second over the measured window. */
  record Measured(double perSecond, double meanBatch) {}

  /**
   * The value + metadata write: the service's own script when it can be read, else a stand-in with
   * the same commands (said so in the report).
   */
  record Script(String text, boolean serviceOwn, int history, long staleGraceMillis, long counterMarginMillis) {

    static final String STAND_IN =
        """
        local stored = redis.call('HMGET', KEYS[2], 'epoch', 'token')
        redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
        redis.call('HSET', KEYS[2], 'epoch', ARGV[3], 'token', ARGV[4], 'computedAt', ARGV[5],
          'delta', ARGV[6], 'expiresAt', ARGV[7], 'size', string.len(ARGV[1]), 'generation', ARGV[9])
        redis.call('PEXPIRE', KEYS[2], ARGV[2])
        redis.call('PEXPIRE', KEYS[3], tonumber(ARGV[2]) + tonumber(ARGV[10]))
        return {1, 0, ''}
        """;

    static Script of(RefresherConfiguration config) {
      int history = config.getRefresh().getTtr().getHistory();
      long grace = config.getRefresh().getStaleGrace().toMilliseconds();
      try {
        Field write = RedisCacheStore.class.getDeclaredField("WRITE");
        write.setAccessible(true);
        long margin = 60_000;
        try {
          Field counter = RedisCacheStore.class.getDeclaredField("COUNTER_MARGIN_MILLIS");
          counter.setAccessible(true);
          margin = counter.getLong(null);
        } catch (ReflectiveOperationException e) {
          // keep the default margin
        }
        return new Script((String) write.get(null), true, history, grace, margin);
      } catch (ReflectiveOperationException | RuntimeException e) {
        System.err.println("ceiling: RedisCacheStore.WRITE not readable (" + e + "); using a stand-in script");
        return new Script(STAND_IN, false, history, grace, 60_000);
      }
    }

    String description() {
      return serviceOwn
          ? "the service's own write (`RedisCacheStore.WRITE`: fence check by HMGET, SET value PX, HSET of the"
              + " metadata with the last "
              + history
              + " compute times, PEXPIRE)"
          : "a stand-in for the service's write (RedisCacheStore.WRITE was not readable): HMGET, SET value PX,"
              + " HSET of the metadata, PEXPIRE";
    }
  }

  /** The three measurements, on one pool and one Redis client. */
  private static final class Work {

    private final HikariDataSource sources;
    private final RedissonClient redisson;
    private final String sha;
    private final Script script;
    private final int rows;
    private final Duration warmUp;
    private final Duration each;
    private final AtomicLong refused = new AtomicLong();
    private final AtomicReference<Throwable> failure = new AtomicReference<>();

    Work(HikariDataSource sources, RedissonClient redisson, String sha, Script script, int rows, Duration warmUp, Duration each) {
      this.sources = sources;
      this.redisson = redisson;
      this.sha = sha;
      this.script = script;
      this.rows = rows;
      this.warmUp = warmUp;
      this.each = each;
    }

    Measured queries(int threads) throws Exception {
      LongAdder done = new LongAdder();
      Window window = new Window(warmUp, each);
      List<Thread> running = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        running.add(
            start(
                "ceiling-query-" + t,
                () -> {
                  try (Connection connection = sources.getConnection();
                      PreparedStatement statement = prepare(connection)) {
                    ThreadLocalRandom random = ThreadLocalRandom.current();
                    while (!window.over()) {
                      query(statement, 1 + random.nextInt(rows));
                      done.increment();
                    }
                  }
                }));
      }
      return window.measure(done, running, null);
    }

    Measured writes() throws Exception {
      LongAdder done = new LongAdder();
      LongAdder batches = new LongAdder();
      Window window = new Window(warmUp, each);
      List<Thread> running = new ArrayList<>();
      for (int t = 0; t < WRITERS; t++) {
        running.add(
            start(
                "ceiling-write-" + t,
                () -> {
                  Semaphore inFlight = new Semaphore(IN_FLIGHT);
                  ThreadLocalRandom random = ThreadLocalRandom.current();
                  while (!window.over()) {
                    inFlight.acquire();
                    RBatch batch = redisson.createBatch(BatchOptions.defaults());
                    for (int i = 0; i < BATCH; i++) {
                      long id = 1 + random.nextInt(rows);
                      write(batch, id, BenchItems.value(id), 1);
                    }
                    send(batch, BATCH, done, batches, inFlight);
                  }
                  inFlight.acquire(IN_FLIGHT); // the last answers
                }));
      }
      return window.measure(done, running, batches);
    }

    Measured refreshes(int threads) throws Exception {
      LongAdder done = new LongAdder();
      LongAdder batches = new LongAdder();
      Window window = new Window(warmUp, each);
      BlockingQueue<long[]> computed = new ArrayBlockingQueue<>(BATCH * IN_FLIGHT * 4);
      List<Thread> running = new ArrayList<>();
      List<Thread> queriers = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        queriers.add(
            start(
                "ceiling-refresh-query-" + t,
                () -> {
                  try (Connection connection = sources.getConnection();
                      PreparedStatement statement = prepare(connection)) {
                    ThreadLocalRandom random = ThreadLocalRandom.current();
                    while (!window.over()) {
                      long id = 1 + random.nextInt(rows);
                      long started = System.nanoTime();
                      String value = query(statement, id);
                      if (!value.equals(BenchItems.value(id))) {
                        throw new IllegalStateException("bench_item " + id + " holds " + value);
                      }
                      long tookMillis = (System.nanoTime() - started) / 1_000_000;
                      while (!computed.offer(new long[] {id, tookMillis}, 50, TimeUnit.MILLISECONDS)) {
                        if (window.over()) {
                          return;
                        }
                      }
                    }
                  }
                }));
      }
      running.addAll(queriers);
      running.add(
          start(
              "ceiling-refresh-write",
              () -> {
                Semaphore inFlight = new Semaphore(IN_FLIGHT);
                List<long[]> drained = new ArrayList<>(BATCH);
                while (!(window.over() && computed.isEmpty() && queriers.stream().noneMatch(Thread::isAlive))) {
                  long[] first = computed.poll(20, TimeUnit.MILLISECONDS);
                  if (first == null) {
                    continue;
                  }
                  drained.add(first);
                  computed.drainTo(drained, BATCH - 1);
                  inFlight.acquire();
                  RBatch batch = redisson.createBatch(BatchOptions.defaults());
                  for (long[] item : drained) {
                    write(batch, item[0], BenchItems.value(item[0]), item[1]);
                  }
                  send(batch, drained.size(), done, batches, inFlight);
                  drained.clear();
                }
                inFlight.acquire(IN_FLIGHT);
              }));
      return window.measure(done, running, batches);
    }

    /** Reads back a few keys: the values written are the rows' values. */
    void check() {
      if (refused.get() > 0) {
        throw new IllegalStateException(refused.get() + " ceiling writes were refused by the script");
      }
      int found = 0;
      for (long id = 1; id <= Math.min(rows, 200); id++) {
        Object value = redisson.getBucket(key(id), StringCodec.INSTANCE).get();
        if (value != null) {
          found++;
          if (!BenchItems.value(id).equals(value)) {
            throw new IllegalStateException("ceiling wrote " + value + " for " + key(id));
          }
        }
      }
      if (found == 0) {
        throw new IllegalStateException("none of the first 200 ceiling keys is in Redis");
      }
    }

    private PreparedStatement prepare(Connection connection) throws SQLException {
      PreparedStatement statement =
          connection.prepareStatement(BenchItems.QUERY, ResultSet.TYPE_FORWARD_ONLY, ResultSet.CONCUR_READ_ONLY);
      statement.setMaxRows(1);
      return statement;
    }

    private static String query(PreparedStatement statement, long id) throws SQLException {
      statement.setLong(1, id);
      try (ResultSet rs = statement.executeQuery()) {
        if (!rs.next()) {
          throw new IllegalStateException("no bench_item " + id);
        }
        return rs.getString(1);
      }
    }

    /** Adds the service's write of one key's value and metadata to a batch (fence epoch 1 token 1: equal fences pass, so concurrent writes of one key are never refused). */
    private void write(RBatch batch, long id, String value, long deltaMillis) {
      String key = key(id);
      long now = System.currentTimeMillis();
      batch
          .getScript(StringCodec.INSTANCE)
          .evalShaAsync(
              key,
              RScript.Mode.READ_WRITE,
              sha,
              RScript.ReturnType.MULTI,
              List.<Object>of(key, CacheKeys.metaKey(key), RedisKeyLocks.tokenCounterName(key)),
              value,
              Long.toString(TTL.toMillis() + script.staleGraceMillis()),
              "1",
              "1",
              Long.toString(now),
              Long.toString(deltaMillis),
              Long.toString(now + TTL.toMillis()),
              Integer.toString(script.history()),
              "1",
              Long.toString(script.counterMarginMillis()));
    }

    private void send(RBatch batch, int size, LongAdder done, LongAdder batches, Semaphore inFlight) {
      batch
          .executeAsync()
          .whenComplete(
              (result, error) -> {
                try {
                  if (error != null) {
                    failure.compareAndSet(null, error);
                    return;
                  }
                  for (Object response : result.getResponses()) {
                    if (!(response instanceof List<?> list) || ((Number) list.get(0)).intValue() != 1) {
                      refused.incrementAndGet();
                    }
                  }
                  done.add(size);
                  batches.increment();
                } finally {
                  inFlight.release();
                }
              });
    }

    private Thread start(String name, Body body) {
      Thread thread =
          new Thread(
              () -> {
                try {
                  body.run();
                } catch (Throwable e) {
                  failure.compareAndSet(null, e);
                }
              },
              name);
      thread.setDaemon(true);
      thread.start();
      return thread;
    }

    /** Warm-up, then the measured window; the threads stop by themselves once it is over. */
    private final class Window {
      private final long start = System.nanoTime();
      private final long measureFrom;
      private final long end;

      Window(Duration warmUp, Duration each) {
        measureFrom = start + warmUp.toNanos();
        end = measureFrom + each.toNanos();
      }

      boolean over() {
        return System.nanoTime() - end >= 0 || failure.get() != null;
      }

      Measured measure(LongAdder done, List<Thread> threads, LongAdder batches) throws Exception {
        sleepUntil(measureFrom);
        long before = done.sum();
        long from = System.nanoTime();
        sleepUntil(end);
        long after = done.sum();
        long to = System.nanoTime();
        for (Thread thread : threads) {
          thread.join(30_000);
          if (thread.isAlive()) {
            throw new IllegalStateException(thread.getName() + " did not stop");
          }
        }
        Throwable failed = failure.get();
        if (failed != null) {
          throw new IllegalStateException("ceiling measurement failed: " + failed, failed);
        }
        double meanBatch = batches == null || batches.sum() == 0 ? 0 : done.sum() / (double) batches.sum();
        return new Measured((after - before) / ((to - from) / 1e9), meanBatch);
      }

      private void sleepUntil(long nanos) throws InterruptedException {
        long left;
        while ((left = nanos - System.nanoTime()) > 0) {
          TimeUnit.NANOSECONDS.sleep(Math.min(left, 100_000_000));
          if (failure.get() != null) {
            return;
          }
        }
      }
    }
  }

  @FunctionalInterface
  private interface Body {
    void run() throws Exception;
  }
}
