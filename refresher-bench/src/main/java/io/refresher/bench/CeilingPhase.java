package io.refresher.bench;

import com.zaxxer.hikari.HikariDataSource;
import io.refresher.bench.report.BenchReport;
import io.refresher.bench.report.Fmt;
import io.refresher.redis.RedisCacheStore;
import io.refresher.redis.RedisKeyLocks;
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
 *       metadata, {@code PEXPIRE}; as many keys per call as the service puts in one) by {@code
 *       EVALSHA}, {@link #BATCH} writes per pipeline (a Redisson batch), {@link #IN_FLIGHT}
 *       pipelines in flight per writer thread, on a Redisson client built like the service's.
 *   <li><b>refreshes</b>: both at once, a minimal refresher: the query threads each query a key's
 *       value and add it to a shared pipeline, which the thread that fills it ({@link #BATCH}
 *       writes) sends, as above.
 * </ol>
 *
 * Keys are {@code ceiling:item:<id>} (with the metadata hash {@code refresher:meta:{...}} beside
 * each) on the run's Redis, deleted at the end; the table is in a database of its own. The pool
 * has as many connections as the service's source pool in the other phases ({@code workers + 2},
 * {@link BenchConfig#WORKERS}).
 */
final class CeilingPhase implements Phase {

  static final String PREFIX = "ceiling:";

  /**
   * Writes per pipeline (system property {@code bench.ceiling.batch}), sent as script calls of up
   * to the service's most keys per call ({@code RedisCacheStore.MAX_WRITE_BATCH}, 32).
   */
  static final int BATCH = Integer.getInteger("bench.ceiling.batch", 128);

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
    Duration each = Duration.ofMillis(context.pick(20_000, 8_000, 1_000));
    Duration warmUp = Duration.ofMillis(context.pick(3_000, 2_000, 300));
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
      awaitFull(sources, pool);
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
                      + " threads each sending pipelines (Redisson batches) of "
                      + BATCH
                      + " writes, up to "
                      + IN_FLIGHT
                      + " pipelines in flight per thread; "
                      + redisClient),
              List.of(
                  "**refreshes** (both at once: the ceiling)",
                  "**" + Fmt.rate(refreshes.perSecond()) + "**",
                  "a minimal refresher: the "
                      + pool
                      + " query threads as above add each key's value to a shared pipeline, and the thread that fills"
                      + " it ("
                      + BATCH
                      + " writes, script calls as above) sends it, up to "
                      + IN_FLIGHT * WRITERS
                      + " pipelines in flight; a refresh counts when its write is answered. "
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
          .put("writesPerPipeline", BATCH)
          .put("keysPerScriptCall", script.perCall())
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
   * Waits until the pool has opened all its connections (it opens them one at a time, in the
   * background): otherwise the last of the threads that each take one waited out the pool's
   * connection timeout while dozens were still being opened.
   */
  private static void awaitFull(HikariDataSource pool, int size) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (pool.getHikariPoolMXBean() == null || pool.getHikariPoolMXBean().getTotalConnections() < size) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("the source pool did not open its " + size + " connections within 60 s");
      }
      TimeUnit.MILLISECONDS.sleep(20);
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
   * Deletes every key the ceiling may have written: value, metadata, and the token counter and
   * lock it never creates; fails if any is left.
   */
  static void deleteKeys(RedissonClient redisson, int rows) {
    List<String> names = new ArrayList<>();
    for (long id = 1; id <= rows; id++) {
      String key = key(id);
      names.add(key);
      names.add(CacheKeys.metaKey(key));
      names.add(RedisKeyLocks.tokenCounterName(key));
      names.add(CacheKeys.lockName(key));
      if (names.size() >= 4_000 || id == rows) {
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
   * The value + metadata write: the service's own script ({@code RedisCacheStore.WRITE}, which
   * takes up to {@code MAX_WRITE_BATCH} keys per call: KEYS value, metadata, token counter, lock;
   * ARGV value, physical TTL, epoch, token, computedAt, delta, expiresAt, history, generation,
   * counter margin, lock owner, mode, validator; three replies per key, the status first) when it
   * can be read and has that shape, else a stand-in of the same shape and commands (said so in the
   * report).
   */
  record Script(
      String text, boolean serviceOwn, int perCall, int history, long staleGraceMillis, long counterMarginMillis) {

    /** How the service's batched write script walks its keys: four per write. */
    static final String SHAPE = "#KEYS / 4";

    /** ARGV per write; the script must walk them so ({@link #ARGS_SHAPE}). */
    static final int ARGS_PER_KEY = 13;

    static final String ARGS_SHAPE = "i * " + ARGS_PER_KEY;

    static final String STAND_IN =
        """
        local out = {}
        for i = 0, #KEYS / 4 - 1 do
          local k = i * 4
          local a = i * 13
          redis.call('HMGET', KEYS[k + 2], 'epoch', 'token', 'failures', 'recent', 'generation', 'retired')
          redis.call('SET', KEYS[k + 1], ARGV[a + 1], 'PX', ARGV[a + 2])
          redis.call('HSET', KEYS[k + 2], 'epoch', ARGV[a + 3], 'token', ARGV[a + 4], 'computedAt', ARGV[a + 5],
            'delta', ARGV[a + 6], 'expiresAt', ARGV[a + 7], 'size', string.len(ARGV[a + 1]), 'generation', ARGV[a + 9])
          redis.call('PEXPIRE', KEYS[k + 2], ARGV[a + 2])
          redis.call('PEXPIRE', KEYS[k + 3], tonumber(ARGV[a + 2]) + tonumber(ARGV[a + 10]))
          out[#out + 1] = 1
          out[#out + 1] = 0
          out[#out + 1] = ''
        end
        return out
        """;

    static Script of(RefresherConfiguration config) {
      int history = config.getRefresh().getTtr().getHistory();
      long grace = config.getRefresh().getStaleGrace().toMilliseconds();
      long margin = staticLong("COUNTER_MARGIN_MILLIS", 60_000);
      int perCall = (int) staticLong("MAX_WRITE_BATCH", 32);
      try {
        Field write = RedisCacheStore.class.getDeclaredField("WRITE");
        write.setAccessible(true);
        String text = (String) write.get(null);
        if (text.contains(SHAPE) && text.contains(ARGS_SHAPE)) {
          return new Script(text, true, perCall, history, grace, margin);
        }
        System.err.println("ceiling: RedisCacheStore.WRITE has another shape than this phase knows; using a stand-in");
      } catch (ReflectiveOperationException | RuntimeException e) {
        System.err.println("ceiling: RedisCacheStore.WRITE not readable (" + e + "); using a stand-in script");
      }
      return new Script(STAND_IN, false, perCall, history, grace, margin);
    }

    private static long staticLong(String name, long fallback) {
      try {
        Field field = RedisCacheStore.class.getDeclaredField(name);
        field.setAccessible(true);
        return ((Number) field.get(null)).longValue();
      } catch (ReflectiveOperationException | RuntimeException e) {
        return fallback;
      }
    }

    String description() {
      return serviceOwn
          ? "the service's own write (`RedisCacheStore.WRITE`: per key a fence check by HMGET, SET value PX, HSET of"
              + " the metadata with the last "
              + history
              + " compute times, PEXPIRE of metadata and token counter; up to "
              + perCall
              + " keys per script call, as the service batches them)"
          : "a stand-in for the service's write (RedisCacheStore.WRITE was not readable or has another shape): per"
              + " key HMGET, SET value PX, HSET of the metadata, PEXPIRE; up to "
              + perCall
              + " keys per call";
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
                    List<long[]> items = new ArrayList<>(BATCH);
                    for (int i = 0; i < BATCH; i++) {
                      items.add(new long[] {1 + random.nextInt(rows), 1});
                    }
                    send(items, done, batches, inFlight);
                  }
                  inFlight.acquire(IN_FLIGHT); // the last answers
                }));
      }
      return window.measure(done, running, batches);
    }

    /**
     * Each query thread adds its key's value to a shared pipeline; the thread that fills it sends
     * it (no writer thread of its own that the query threads would crowd out), and the last thread
     * to stop sends what is left.
     */
    Measured refreshes(int threads) throws Exception {
      LongAdder done = new LongAdder();
      LongAdder batches = new LongAdder();
      Window window = new Window(warmUp, each);
      int pipelines = IN_FLIGHT * WRITERS;
      Semaphore inFlight = new Semaphore(pipelines);
      Object lock = new Object();
      List<List<long[]>> pending = new ArrayList<>(List.of(new ArrayList<>(BATCH)));
      java.util.concurrent.atomic.AtomicInteger alive = new java.util.concurrent.atomic.AtomicInteger(threads);
      List<Thread> running = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        running.add(
            start(
                "ceiling-refresh-" + t,
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
                      long[] item = {id, (System.nanoTime() - started) / 1_000_000};
                      List<long[]> full = null;
                      synchronized (lock) {
                        pending.get(0).add(item);
                        if (pending.get(0).size() >= BATCH) {
                          full = pending.set(0, new ArrayList<>(BATCH));
                        }
                      }
                      if (full != null) {
                        inFlight.acquire();
                        send(full, done, batches, inFlight);
                      }
                    }
                  } finally {
                    if (alive.decrementAndGet() == 0) {
                      List<long[]> rest;
                      synchronized (lock) {
                        rest = pending.set(0, new ArrayList<>());
                      }
                      if (!rest.isEmpty()) {
                        inFlight.acquire();
                        send(rest, done, batches, inFlight);
                      }
                      inFlight.acquire(pipelines); // the last answers
                    }
                  }
                }));
      }
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

    /**
     * Sends the writes of these keys' values and metadata as one pipeline: script calls of up to
     * {@code perCall} keys each, in one Redisson batch. Fence epoch 1 token 1 for every write: equal
     * fences pass, so writes of one key in flight at once are never refused; no lock to release.
     *
     * @param items {id, compute time ms} per key
     */
    private void send(List<long[]> items, LongAdder done, LongAdder batches, Semaphore inFlight) {
      RBatch batch = redisson.createBatch(BatchOptions.defaults());
      long now = System.currentTimeMillis();
      String ttl = Long.toString(TTL.toMillis() + script.staleGraceMillis());
      String expiresAt = Long.toString(now + TTL.toMillis());
      String computedAt = Long.toString(now);
      String history = Integer.toString(script.history());
      String margin = Long.toString(script.counterMarginMillis());
      for (int from = 0; from < items.size(); from += script.perCall()) {
        List<long[]> call = items.subList(from, Math.min(items.size(), from + script.perCall()));
        List<Object> keys = new ArrayList<>(call.size() * 4);
        List<Object> args = new ArrayList<>(call.size() * Script.ARGS_PER_KEY);
        for (long[] item : call) {
          String key = key(item[0]);
          keys.add(key);
          keys.add(CacheKeys.metaKey(key));
          keys.add(RedisKeyLocks.tokenCounterName(key));
          keys.add(CacheKeys.lockName(key));
          args.add(BenchItems.value(item[0]));
          args.add(ttl);
          args.add("1");
          args.add("1");
          args.add(computedAt);
          args.add(Long.toString(item[1]));
          args.add(expiresAt);
          args.add(history);
          args.add("1");
          args.add(margin);
          args.add("");
          args.add("w"); // a write, not a revalidation's extension
          args.add(""); // no validator
        }
        batch
            .getScript(StringCodec.INSTANCE)
            .evalShaAsync((String) keys.get(0), RScript.Mode.READ_WRITE, sha, RScript.ReturnType.MULTI, keys, args.toArray());
      }
      int size = items.size();
      batch
          .executeAsync()
          .whenComplete(
              (result, error) -> {
                try {
                  if (error != null) {
                    failure.compareAndSet(null, error);
                    return;
                  }
                  int answered = 0;
                  for (Object response : result.getResponses()) {
                    List<?> replies = response instanceof List<?> list ? list : List.of();
                    for (int i = 0; i < replies.size(); i += 3) {
                      answered++;
                      if (((Number) replies.get(i)).intValue() != 1) {
                        refused.incrementAndGet();
                      }
                    }
                  }
                  if (answered != size) {
                    failure.compareAndSet(
                        null, new IllegalStateException("the write script answered for " + answered + " of " + size + " keys"));
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

    /**
     * Warm-up, then the measured window; the threads stop by themselves once it is over. The window
     * lasts its time and, past it, until {@link #MIN_COUNTED} operations were counted in it (at
     * most {@link #MAX_EXTENSION} more): a short window on a machine whose CPU other work took
     * (the smoke run beside the tests) counted none, and the rate of nothing is no ceiling.
     */
    private final class Window {
      private static final long MIN_COUNTED = 10;
      private static final long MAX_EXTENSION = TimeUnit.SECONDS.toNanos(30);
      private final long start = System.nanoTime();
      private final long measureFrom;
      private final long end;
      private volatile boolean closed;

      Window(Duration warmUp, Duration each) {
        measureFrom = start + warmUp.toNanos();
        end = measureFrom + each.toNanos();
      }

      boolean over() {
        return closed || failure.get() != null;
      }

      Measured measure(LongAdder done, List<Thread> threads, LongAdder batches) throws Exception {
        sleepUntil(measureFrom);
        long before = done.sum();
        long from = System.nanoTime();
        sleepUntil(end);
        while (done.sum() - before < MIN_COUNTED && System.nanoTime() - end < MAX_EXTENSION && failure.get() == null) {
          TimeUnit.MILLISECONDS.sleep(10);
        }
        long after = done.sum();
        long to = System.nanoTime();
        closed = true;
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
