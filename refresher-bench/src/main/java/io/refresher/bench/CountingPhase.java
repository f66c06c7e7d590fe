package io.refresher.bench;

import io.refresher.client.redisson.RedissonDriver;
import io.refresher.access.AccessSettings;
import io.refresher.access.HotKeyTracker;
import io.refresher.access.HotSetListener;
import io.refresher.access.HotSetReport;
import io.refresher.bench.report.BenchReport;
import io.refresher.bench.report.Fmt;
import io.refresher.redis.RedisAccessCounts;
import io.refresher.redis.RedisDueIndex;
import io.refresher.redis.RedisHotSetStore;
import io.refresher.redis.RedisPopularityStore;
import io.refresher.client.AccessCounter;
import io.refresher.client.protocol.AccessProtocol;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.redisson.config.Config;

/**
 * Access counting, re-measured in the run's report (formerly AccessCountingBench and
 * HotKeySamplingBench, and the bounded way of {@link SamplerCatchUpBench}):
 *
 * <ol>
 *   <li><b>client</b>: reader threads call {@link AccessCounter#record} as fast as they can over a
 *       skewed key population, the counter flushes every second; at the end every count is checked
 *       against what reached the Redis buckets.
 *   <li><b>sampler</b>: one reader reports reads at a fixed rate over many distinct keys through the
 *       client library, and the service's sampler ({@link HotKeyTracker}, the code of the {@code
 *       sample-access} job) folds them into popularity and recomputes the hot set once a second.
 *   <li><b>catch-up</b>: the buckets of a pause of the sampler are written straight into Redis, then
 *       the sampler catches up with its bounds; time, samplings and heap.
 * </ol>
 *
 * On the run's Redis, database {@value #REDIS_DB} (emptied before, between and after): the
 * counting's key names are the service's own, and must not meet the other phases'.
 */
final class CountingPhase implements Phase {

  static final int REDIS_DB = 2;

  @Override
  public String id() {
    return "counting";
  }

  @Override
  public void run(BenchContext context, BenchReport report) throws Exception {
    String load = LoadAverage.now();
    Config config = new Config();
    config.setCodec(StringCodec.INSTANCE);
    // As the service's client: 3 s timeout, one retry.
    config.useSingleServer().setAddress(context.redis().url()).setDatabase(REDIS_DB).setTimeout(3_000).setRetryAttempts(1);
    RedissonClient redisson = Redisson.create(config);
    var section = report.section(id(), "Access counting: client library and sampler");
    try {
      redisson.getKeys().flushdb();
      Client client = client(redisson, 2, context.pick(10_000, 10_000, 1_000), context.pick(10, 5, 1));
      redisson.getKeys().flushdb();
      Sampler sampler =
          sampler(redisson, context.pick(100_000, 100_000, 5_000), context.pick(2_000_000, 2_000_000, 200_000), context.pick(20, 10, 3));
      redisson.getKeys().flushdb();
      int catchUpKeys = context.pick(100_000, 20_000, 2_000);
      int pause = context.pick(60, 30, 3);
      SamplerCatchUpBench.Run catchUp = catchUp(context, redisson, catchUpKeys, pause);

      section.paragraph(
          "On the run's Redis (database "
              + REDIS_DB
              + "), the client library's and the service's own code; reader threads, Redis and the sampler share the"
              + " machine's cores. Redis command counts are INFO commandstats deltas (script-internal commands"
              + " included). "
              + LoadAverage.sentence(load));
      section.table(
          "Client: `AccessCounter.record` as fast as it goes",
          List.of(
              "readers", "keys", "seconds", "reads/s recorded", "recorded", "in Redis after flushing", "dropped", "flush failures",
              "Redis commands/s"),
          List.of(
              List.of(
                  Integer.toString(client.threads()),
                  Fmt.number(client.keys()) + " (skewed: a few hot, a long tail)",
                  Fmt.number(Math.round(client.seconds() * 10) / 10.0),
                  "**" + Fmt.rate(client.recorded() / client.seconds()) + "**",
                  Fmt.number(client.recorded()),
                  Fmt.number(client.inRedis())
                      + (client.inRedis() == client.flushed()
                          ? " (exact)"
                          : " (**MISMATCH**: " + Fmt.number(client.flushed()) + " flushed; a flush that timed out after"
                              + " Redis ran it is put back and written again)"),
                  Fmt.number(client.dropped()),
                  Fmt.number(client.flushFailures()),
                  perSecond(client.commands(), client.seconds()))));
      section.table(
          "Sampler: one sampling a second while reads are reported at a fixed rate",
          List.of("reads/s reported (achieved)", "distinct keys (all hot)", "seconds", "sampling p50 / max", "reads consumed", "hot set", "counter lag (last)"),
          List.of(
              List.of(
                  Fmt.rate(sampler.rate()) + " (" + Fmt.rate(sampler.achieved()) + ")",
                  Fmt.number(sampler.keys()),
                  Fmt.number(sampler.seconds()),
                  "**" + Fmt.millis(sampler.p50Millis()) + " / " + Fmt.millis(sampler.maxMillis()) + "**"
                      + " (after " + sampler.skipped() + " warm-up samplings)",
                  Fmt.number(sampler.consumed()),
                  Fmt.number(sampler.hotSize()),
                  Fmt.millis(sampler.lastLagMillis()))));
      long consumed = catchUp.ticks().stream().mapToLong(HotSetReport::readsCounted).sum();
      section.table(
          "Sampler catch-up after a pause (bounded: "
              + catchUp.bounds().secondsPerRead()
              + " s per round trip, "
              + catchUp.bounds().secondsPerSampling()
              + " s per sampling)",
          List.of("pause", "distinct keys a second", "reads written", "caught up in", "samplings", "reads consumed", "heap before", "peak after a GC", "GCs"),
          List.of(
              List.of(
                  pause + " s",
                  Fmt.number(catchUpKeys),
                  Fmt.number(catchUp.written()),
                  catchUp.failure() == null ? "**" + String.format(Locale.ROOT, "%.1f s", catchUp.millis() / 1000.0) + "**" : "**FAILED**: " + catchUp.failure(),
                  Fmt.number(catchUp.ticks().size()),
                  Fmt.number(consumed) + (consumed == catchUp.written() ? " (all)" : " (**MISMATCH**)"),
                  (catchUp.baselineBytes() >> 20) + " MB",
                  (catchUp.peakAfterGcBytes() >> 20) + " MB",
                  Fmt.number(catchUp.gcs()))));
      section.paragraph(
          "The catch-up's heap is this JVM's (max "
              + (Runtime.getRuntime().maxMemory() >> 20)
              + " MB), sampled every millisecond on another thread; the peak after a GC is what was still live. The"
              + " comparison with the old unbounded way and runs under other heaps: `SamplerCatchUpBench`"
              + " (docs/hot-keys.md).");

      Map<String, Object> clientJson = new LinkedHashMap<>();
      clientJson.put("threads", client.threads());
      clientJson.put("keys", client.keys());
      clientJson.put("seconds", client.seconds());
      clientJson.put("readsPerSecond", client.recorded() / client.seconds());
      clientJson.put("recorded", client.recorded());
      clientJson.put("flushed", client.flushed());
      clientJson.put("inRedis", client.inRedis());
      clientJson.put("dropped", client.dropped());
      clientJson.put("flushFailures", client.flushFailures());
      clientJson.put("commands", client.commands());
      Map<String, Object> samplerJson = new LinkedHashMap<>();
      samplerJson.put("readsPerSecond", sampler.rate());
      samplerJson.put("readsPerSecondAchieved", sampler.achieved());
      samplerJson.put("keys", sampler.keys());
      samplerJson.put("seconds", sampler.seconds());
      samplerJson.put("samplingP50Ms", sampler.p50Millis());
      samplerJson.put("samplingMaxMs", sampler.maxMillis());
      samplerJson.put("readsConsumed", sampler.consumed());
      samplerJson.put("hotSize", sampler.hotSize());
      Map<String, Object> catchUpJson = new LinkedHashMap<>();
      catchUpJson.put("pauseSeconds", pause);
      catchUpJson.put("keys", catchUpKeys);
      catchUpJson.put("readsWritten", catchUp.written());
      catchUpJson.put("readsConsumed", consumed);
      catchUpJson.put("catchUpMs", catchUp.millis());
      catchUpJson.put("samplings", catchUp.ticks().size());
      catchUpJson.put("heapBeforeBytes", catchUp.baselineBytes());
      catchUpJson.put("peakAfterGcBytes", catchUp.peakAfterGcBytes());
      catchUpJson.put("failure", catchUp.failure());
      section.put("loadAverageAtStart", load).put("client", clientJson).put("sampler", samplerJson).put("catchUp", catchUpJson);

      // Mismatches and a failed catch-up are results (shown in bold above), not a failure of the phase.
    } finally {
      try {
        redisson.getKeys().flushdb();
      } finally {
        redisson.shutdown();
      }
    }
  }

  private static String perSecond(Map<String, Long> commands, double seconds) {
    List<String> parts = new ArrayList<>();
    commands.forEach((name, calls) -> parts.add(name.toUpperCase(Locale.ROOT) + " " + Fmt.rate(calls / seconds)));
    return parts.isEmpty() ? "none" : String.join(", ", parts);
  }

  record Client(
      int threads, int keys, double seconds, long recorded, long flushed, long dropped, long flushFailures, long inRedis,
      Map<String, Long> commands) {}

  /** Readers record as fast as they can; then the counter is closed (flushed) and Redis summed. */
  private static Client client(RedissonClient redisson, int threads, int keys, int seconds) throws Exception {
    String[] names = new String[keys];
    for (int i = 0; i < keys; i++) {
      names[i] = "item:" + i;
    }
    RedisCommandStats before = RedisCommandStats.of(redisson);
    AccessCounter counter = AccessCounter.builder(RedissonDriver.of(redisson)).flushInterval(Duration.ofSeconds(1)).build();
    AtomicBoolean stop = new AtomicBoolean();
    LongAdder reads = new LongAdder();
    CountDownLatch done = new CountDownLatch(threads);
    long started = System.nanoTime();
    for (int t = 0; t < threads; t++) {
      Thread reader =
          new Thread(
              () -> {
                ThreadLocalRandom random = ThreadLocalRandom.current();
                long local = 0;
                while (!stop.get()) {
                  for (int i = 0; i < 1024; i++) {
                    // Squaring a uniform draw skews towards low indexes: a few hot keys, a long tail.
                    double u = random.nextDouble();
                    counter.record(names[(int) (u * u * keys)]);
                  }
                  local += 1024;
                }
                reads.add(local);
                done.countDown();
              },
              "counting-reader-" + t);
      reader.setDaemon(true);
      reader.start();
    }
    Thread.sleep(seconds * 1000L);
    stop.set(true);
    done.await();
    double elapsed = (System.nanoTime() - started) / 1e9;
    counter.close();
    AccessCounter.Stats stats = counter.stats();
    long inRedis = countedInRedis(redisson);
    Map<String, Long> commands = new LinkedHashMap<>();
    RedisCommandStats.of(redisson).minus(before).calls()
        .forEach(
            (name, calls) -> {
              if (calls > 0 && name.startsWith("eval") || name.equals("hincrby") || name.equals("expire")) {
                commands.put(name, calls);
              }
            });
    System.out.printf(
        "counting: client %s reads/s, %d in Redis of %d flushed (%d unconfirmed)%n",
        Fmt.rate(reads.sum() / elapsed),
        inRedis,
        stats.flushed(),
        stats.unconfirmed());
    return new Client(
        threads, keys, elapsed, stats.recorded(), stats.flushed(), stats.dropped(), stats.flushFailures(), inRedis, commands);
  }

  private static long countedInRedis(RedissonClient redisson) {
    long total = 0;
    for (String bucket : redisson.getKeys().getKeysByPattern(AccessProtocol.PREFIX + "*")) {
      for (String count : redisson.<String, String>getMap(bucket, StringCodec.INSTANCE).readAllMap().values()) {
        total += Long.parseLong(count);
      }
    }
    return total;
  }

  record Sampler(
      double rate, double achieved, int keys, int seconds, long p50Millis, long maxMillis, int skipped, long consumed, long hotSize, long lastLagMillis) {}

  /** One paced reader and the sampler ticking once a second. */
  private static Sampler sampler(RedissonClient redisson, int keys, int rate, int seconds) throws Exception {
    String[] names = new String[keys];
    for (int i = 0; i < keys; i++) {
      names[i] = "item:" + i;
    }
    AccessCounter counter =
        AccessCounter.builder(RedissonDriver.of(redisson)).flushInterval(Duration.ofSeconds(1)).maxPendingKeys(keys + 1).build();
    AccessSettings settings =
        new AccessSettings(
            Duration.ofMinutes(1), 0.01, Duration.ofMinutes(5), keys, Duration.ofSeconds(1), Duration.ofSeconds(1), 1_000_000, keys);
    HotKeyTracker tracker =
        new HotKeyTracker(
            new RedisAccessCounts(redisson),
            new RedisPopularityStore(redisson),
            new RedisHotSetStore(redisson),
            SamplerCatchUpBench.everyKeyCovered(),
            new RedisDueIndex(redisson, 4),
            settings,
            HotSetListener.NONE,
            InstantSource.system());
    AtomicBoolean stop = new AtomicBoolean();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    Thread reader =
        new Thread(
            () -> {
              try {
                ThreadLocalRandom random = ThreadLocalRandom.current();
                long started = System.nanoTime();
                long recorded = 0;
                while (!stop.get()) {
                  for (int i = 0; i < 1024; i++) {
                    counter.record(names[random.nextInt(keys)]);
                  }
                  recorded += 1024;
                  long ahead = started + recorded * 1_000_000_000L / rate - System.nanoTime();
                  if (ahead > 0) {
                    LockSupport.parkNanos(ahead);
                  }
                }
              } catch (Throwable e) {
                failure.set(e);
              }
            },
            "counting-sampler-reader");
    reader.setDaemon(true);
    long readingSince = System.nanoTime();
    reader.start();
    List<Long> durations = new ArrayList<>();
    long consumed = 0;
    HotSetReport last = null;
    long end = System.nanoTime() + seconds * 1_000_000_000L;
    try {
      while (System.nanoTime() < end) {
        long started = System.nanoTime();
        last = tracker.tick();
        long tookMs = (System.nanoTime() - started) / 1_000_000;
        durations.add(tookMs);
        consumed += last.readsCounted();
        long sleep = 1000 - tookMs;
        if (sleep > 0) {
          Thread.sleep(sleep);
        }
      }
    } finally {
      stop.set(true);
      reader.join();
      counter.close();
    }
    double readSeconds = (System.nanoTime() - readingSince) / 1e9;
    if (failure.get() != null) {
      throw new IllegalStateException("sampler reader failed: " + failure.get(), failure.get());
    }
    int skip = Math.min(durations.size() - 1, seconds >= 10 ? 3 : 1);
    List<Long> sorted = new ArrayList<>(durations.subList(skip, durations.size()));
    Collections.sort(sorted);
    System.out.printf(
        "counting: sampler p50 %d ms max %d ms over %d samplings%n",
        sorted.get(sorted.size() / 2), sorted.get(sorted.size() - 1), sorted.size());
    return new Sampler(
        rate, recordedBy(counter) / readSeconds, keys, seconds, sorted.get(sorted.size() / 2), sorted.get(sorted.size() - 1), skip, consumed,
        last == null ? 0 : last.hotSize(), last == null ? 0 : last.counterLagMillis());
  }

  private static long recordedBy(AccessCounter counter) {
    return counter.stats().recorded();
  }

  /** The bounded catch-up of {@link SamplerCatchUpBench} on this run's Redis. */
  private static SamplerCatchUpBench.Run catchUp(BenchContext context, RedissonClient redisson, int keys, int pause)
      throws Exception {
    Duration interval = Duration.ofSeconds(5);
    AccessSettings settings =
        new AccessSettings(
            Duration.ofMinutes(1), 0.01, Duration.ofMinutes(5), keys, Duration.ofSeconds(1), interval, 1_000_000, keys);
    SamplerCatchUpBench.Run run =
        SamplerCatchUpBench.run(
            "bounded", HotKeyTracker.CatchUp.of(settings), context.redis(), REDIS_DB, redisson, settings, keys, pause, true, 1);
    System.out.printf("counting: catch-up of %d s x %d keys in %.1f s%n", pause, keys, run.millis() / 1000.0);
    return run;
  }
}
