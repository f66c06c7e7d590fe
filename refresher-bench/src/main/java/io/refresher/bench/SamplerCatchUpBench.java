package io.refresher.bench;

import ch.qos.logback.classic.Level;
import com.sun.management.GarbageCollectionNotificationInfo;
import io.refresher.access.AccessSettings;
import io.refresher.access.HotKeyTracker;
import io.refresher.access.HotSetListener;
import io.refresher.access.HotSetReport;
import io.refresher.access.PopularityStore;
import io.refresher.redis.RedisAccessCounts;
import io.refresher.redis.RedisDueIndex;
import io.refresher.redis.RedisHotSetStore;
import io.refresher.redis.RedisPopularityStore;
import io.refresher.client.protocol.AccessProtocol;
import io.refresher.embedded.EmbeddedRedis;
import io.refresher.registry.RefreshPolicy;
import io.refresher.registry.Registration;
import io.refresher.registry.RegistrationLookup;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import net.sourceforge.argparse4j.ArgumentParsers;
import net.sourceforge.argparse4j.inf.ArgumentParser;
import net.sourceforge.argparse4j.inf.ArgumentParserException;
import net.sourceforge.argparse4j.helper.HelpScreenException;
import net.sourceforge.argparse4j.inf.Namespace;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import javax.management.NotificationEmitter;
import javax.management.NotificationListener;
import javax.management.openmbean.CompositeData;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.redisson.config.Config;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the sampler's catch-up after a pause costs in heap and time. The buckets of {@code --pause}
 * seconds during which {@code --keys} distinct keys were read every second are written straight
 * into an embedded Redis (raw {@code HINCRBY} in the wire protocol, pipelined, as any reader
 * would); then the sampler ({@link HotKeyTracker}, the code of the {@code sample-access} job) ticks
 * back to back until it has caught up. Meanwhile another thread samples the used heap every
 * {@code --sample-ms}, and every GC's heap after collection is recorded (the data still live).
 * With {@code --compare 1} the same is done again with the old unbounded way: all 60 seconds in
 * one round trip and one sampling.
 *
 * <p>The sampler's clock stands still at the end of the pause, so both ways consume the same
 * seconds however long writing and reading take (the buckets get a TTL of an hour for the same
 * reason). The Redis client is set up as the service's ({@code redis.timeout} 3 s, one retry)
 * unless {@code --timeout-ms} says otherwise.
 *
 * <p>The used heap includes garbage the collector has not reclaimed yet, so its peak grows with
 * the heap the JVM is given: compare ways under the same {@code -Xmx}, and the smallest {@code
 * -Xmx} a way completes in says most about what it needs. The service's heap in production is
 * 768 MB ({@code deploy/}).
 *
 * <pre>
 *   java -Xmx768m -cp refresher-bench/target/refresher-bench.jar io.refresher.bench.SamplerCatchUpBench \
 *       [--keys 100000] [--pause 60] [--interval-ms 5000] [--per-read 1] [--per-sampling 10] \
 *       [--compare 1] [--same-keys 1] [--timeout-ms 3000] [--sample-ms 1]
 * </pre>
 *
 * {@code --per-read} and {@code --per-sampling} default to the tracker's own bounds for the
 * interval; {@code --same-keys 0} gives every second keys of its own (the increments of a sampling
 * are then as many as the keys of all its seconds).
 */
public final class SamplerCatchUpBench {

  private static final Duration SETTLE = Duration.ofSeconds(1);
  private static final int BUCKET_TTL_FOR_THE_RUN = 3600;
  private static final int COMMANDS_PER_FLUSH = 20_000;

  /** One catch-up: its bounds, the heap it took, how long, the samplings and the reads written. */
  record Run(
      String name,
      HotKeyTracker.CatchUp bounds,
      long baselineBytes,
      long peakUsedBytes,
      long peakAfterGcBytes,
      int gcs,
      long millis,
      List<HotSetReport> ticks,
      List<Long> tickMillis,
      long written,
      String failure) {}

  public static void main(String[] args) throws Exception {
    ArgumentParser parser = ArgumentParsers.newFor("sampler-catch-up").build()
        .description("How long the sampler takes to catch up after a pause, with and without a bound on the seconds it reads at once.");
    parser.addArgument("--keys").type(Integer.class).setDefault(100_000).help("distinct keys read per second");
    parser.addArgument("--pause").type(Integer.class).setDefault(60).help("seconds the sampler is paused");
    parser.addArgument("--interval-ms").type(Integer.class).setDefault(5000).help("the sampling interval");
    parser.addArgument("--compare").type(Integer.class).choices(0, 1).setDefault(1).help("1: also run without the bound");
    parser.addArgument("--same-keys").type(Integer.class).choices(0, 1).setDefault(1).help("1: the same keys every second");
    parser.addArgument("--timeout-ms").type(Integer.class).setDefault(3000).help("Redis command timeout");
    parser.addArgument("--sample-ms").type(Integer.class).setDefault(1).help("heap sampling period");
    parser.addArgument("--per-read").type(Integer.class).help("seconds read per call (default: the service's)");
    parser.addArgument("--per-sampling").type(Integer.class).help("seconds read per sampling (default: the service's)");
    Namespace options;
    try {
      options = parser.parseArgs(args);
    } catch (HelpScreenException help) {
      return;
    } catch (ArgumentParserException e) {
      parser.handleError(e);
      System.exit(2);
      return;
    }
    ((ch.qos.logback.classic.Logger) LoggerFactory.getLogger(Logger.ROOT_LOGGER_NAME)).setLevel(Level.WARN);
    int keys = options.getInt("keys");
    int pause = options.getInt("pause");
    Duration interval = Duration.ofMillis(options.getInt("interval_ms"));
    boolean compare = options.getInt("compare") != 0;
    boolean sameKeys = options.getInt("same_keys") != 0;
    int timeoutMs = options.getInt("timeout_ms");
    int sampleMs = options.getInt("sample_ms");
    AccessSettings settings =
        new AccessSettings(
            Duration.ofMinutes(1), 0.01, Duration.ofMinutes(5), keys, SETTLE, interval, 1_000_000, keys);
    HotKeyTracker.CatchUp defaults = HotKeyTracker.CatchUp.of(settings);
    HotKeyTracker.CatchUp bounded =
        new HotKeyTracker.CatchUp(
            Optional.ofNullable(options.getInt("per_read")).orElse(defaults.secondsPerRead()),
            Optional.ofNullable(options.getInt("per_sampling")).orElse(defaults.secondsPerSampling()));
    int window = AccessProtocol.BUCKET_TTL_SECONDS;

    System.out.printf(
        "sampler catch-up after a %d s pause, %,d distinct keys read per second (%s), interval %d ms, max heap %,d MB%n",
        pause,
        keys,
        sameKeys ? "the same keys every second" : "keys of its own every second",
        interval.toMillis(),
        Runtime.getRuntime().maxMemory() >> 20);
    List<Run> runs = new ArrayList<>();
    try (EmbeddedRedis redis = EmbeddedRedis.start()) {
      Config config = new Config();
      config.setCodec(StringCodec.INSTANCE);
      config.useSingleServer().setAddress(redis.url()).setTimeout(timeoutMs).setRetryAttempts(1);
      RedissonClient redisson = Redisson.create(config);
      runs.add(run("bounded", bounded, redis, 0, redisson, settings, keys, pause, sameKeys, sampleMs));
      if (compare) {
        runs.add(
            run("unbounded (old)", new HotKeyTracker.CatchUp(window, window), redis, 0, redisson, settings, keys, pause, sameKeys, sampleMs));
      }
      redisson.shutdown();
    }
    for (Run run : runs) {
      print(run);
    }
    System.out.println();
    System.out.println(
        "  way              | per read | per sampling | heap before | peak used | peak after a GC | GCs | catch-up | samplings");
    for (Run run : runs) {
      System.out.printf(
          "  %-16s | %6d s | %10d s | %8d MB | %6d MB | %12d MB | %3d | %6.1f s | %s%n",
          run.name(),
          run.bounds().secondsPerRead(),
          run.bounds().secondsPerSampling(),
          run.baselineBytes() >> 20,
          run.peakUsedBytes() >> 20,
          run.peakAfterGcBytes() >> 20,
          run.gcs(),
          run.millis() / 1000.0,
          run.failure() == null ? Integer.toString(run.ticks().size()) : "FAILED");
    }
    System.out.printf(
        "  (GC: %s; peak used sampled every %d ms; heap before after full GCs)%n",
        String.join(", ", ManagementFactory.getGarbageCollectorMXBeans().stream().map(GarbageCollectorMXBean::getName).toList()),
        sampleMs);
    System.exit(0);
  }

  /**
   * One catch-up on database {@code database} of {@code redis} (emptied first), which {@code
   * redisson} must use too.
   */
  static Run run(
      String name,
      HotKeyTracker.CatchUp bounds,
      EmbeddedRedis redis,
      int database,
      RedissonClient redisson,
      AccessSettings settings,
      int keys,
      int pause,
      boolean sameKeys,
      int sampleMs)
      throws Exception {
    redisson.getKeys().flushdb();
    // The end of the pause, mid-second; the sampler's clock stays there.
    long now = System.currentTimeMillis() / 1000 * 1000 + 500;
    long lastComplete = Math.floorDiv(now - settings.settle().toMillis(), 1000L) - 1;
    long cursor = lastComplete - pause;
    long firstKept = Math.max(cursor + 1, lastComplete - AccessProtocol.BUCKET_TTL_SECONDS + 1);
    long started = System.nanoTime();
    long written = writeBuckets(redis, database, cursor + 1, lastComplete, firstKept, keys, sameKeys);
    System.out.printf(
        "%n%s: wrote %d s of buckets (%,d reads) in %.1f s%n",
        name, pause, written, (System.nanoTime() - started) / 1e9);

    RedisPopularityStore popularity = new RedisPopularityStore(redisson);
    popularity.initialise(new PopularityStore.State(now, cursor));
    HotKeyTracker tracker =
        new HotKeyTracker(
            new RedisAccessCounts(redisson),
            popularity,
            new RedisHotSetStore(redisson),
            everyKeyCovered(),
            new RedisDueIndex(redisson, 4),
            settings,
            HotSetListener.NONE,
            InstantSource.fixed(Instant.ofEpochMilli(now)),
            bounds);

    HeapWatch watch = new HeapWatch(sampleMs);
    long baseline = watch.baselineAfterGc();
    watch.start();
    List<HotSetReport> ticks = new ArrayList<>();
    List<Long> tickMillis = new ArrayList<>();
    String failure = null;
    long catchUpStarted = System.nanoTime();
    try {
      // Caught up once the newest complete second is consumed: the lag is then settle + the partial second.
      long caughtUpLag = now - (lastComplete + 1) * 1000;
      HotSetReport report;
      do {
        long tickStarted = System.nanoTime();
        report = tracker.tick();
        tickMillis.add((System.nanoTime() - tickStarted) / 1_000_000);
        ticks.add(report);
      } while (report.counterLagMillis() > caughtUpLag && report.secondsConsumed() > 0);
    } catch (RuntimeException | OutOfMemoryError e) {
      failure = e.toString();
    }
    long millis = (System.nanoTime() - catchUpStarted) / 1_000_000;
    watch.stop();
    return new Run(
        name,
        bounds,
        baseline,
        Math.max(watch.peakUsed(), baseline),
        Math.max(watch.peakAfterGc(), baseline),
        watch.gcs(),
        millis,
        ticks,
        tickMillis,
        written,
        failure);
  }

  private static void print(Run run) {
    System.out.printf(
        "%n%s: %d s per round trip, %d s per sampling%n",
        run.name(), run.bounds().secondsPerRead(), run.bounds().secondsPerSampling());
    System.out.println("  tick ms | seconds | reads consumed | counter lag ms | hot set");
    for (int i = 0; i < run.ticks().size(); i++) {
      HotSetReport report = run.ticks().get(i);
      System.out.printf(
          "  %7d | %7d | %,14d | %,14d | %,7d%n",
          run.tickMillis().get(i),
          report.secondsConsumed(),
          report.readsCounted(),
          report.counterLagMillis(),
          report.hotSize());
    }
    long consumed = run.ticks().stream().mapToLong(HotSetReport::readsCounted).sum();
    if (run.failure() != null) {
      System.out.println("  FAILED: " + run.failure());
    }
    System.out.printf(
        "  %,d reads consumed of %,d written (%s); caught up in %.1f s%n",
        consumed, run.written(), consumed == run.written() ? "all" : "MISMATCH", run.millis() / 1000.0);
    System.out.printf(
        "  heap before %,d MB; during the catch-up peak used %,d MB (sampled), peak after a GC %,d MB, %d GCs%n",
        run.baselineBytes() >> 20, run.peakUsedBytes() >> 20, run.peakAfterGcBytes() >> 20, run.gcs());
  }

  /**
   * Writes the buckets of seconds {@code first..last}: in each, every key read 1 to 10 times, one
   * {@code HINCRBY} per key and second, an {@code EXPIRE} per bucket, pipelined on a plain socket.
   * Returns the reads written in seconds from {@code firstKept} on (the ones the sampler can still
   * consume).
   */
  private static long writeBuckets(
      EmbeddedRedis redis, int database, long first, long last, long firstKept, int keys, boolean sameKeys)
      throws IOException {
    try (Socket socket = new Socket("127.0.0.1", redis.port())) {
      Resp resp = new Resp(socket);
      if (database != 0) {
        resp.select(database);
      }
      String[] sameNames = new String[keys];
      int[] sameShards = new int[keys];
      for (int i = 0; i < keys; i++) {
        sameNames[i] = "item:" + i;
        sameShards[i] = AccessProtocol.shardOf(sameNames[i]);
      }
      long written = 0;
      for (long second = first; second <= last; second++) {
        Set<Integer> shards = new HashSet<>();
        for (int i = 0; i < keys; i++) {
          String key = sameKeys ? sameNames[i] : "item:" + (second - first) + ":" + i;
          int shard = sameKeys ? sameShards[i] : AccessProtocol.shardOf(key);
          long count = 1 + Math.floorMod(i * 31L + second, 10);
          resp.command("HINCRBY", AccessProtocol.bucketKey(shard, second), key, Long.toString(count));
          shards.add(shard);
          if (second >= firstKept) {
            written += count;
          }
        }
        for (int shard : shards) {
          resp.command("EXPIRE", AccessProtocol.bucketKey(shard, second), Integer.toString(BUCKET_TTL_FOR_THE_RUN));
        }
      }
      resp.finish();
      return written;
    }
  }

  /** Commands in the Redis wire protocol, pipelined: replies are read every few thousand commands. */
  private static final class Resp {

    private final OutputStream out;
    private final InputStream in;
    private int unanswered;

    Resp(Socket socket) throws IOException {
      out = new BufferedOutputStream(socket.getOutputStream(), 1 << 16);
      in = new BufferedInputStream(socket.getInputStream(), 1 << 16);
    }

    void command(String... parts) throws IOException {
      out.write(('*' + Integer.toString(parts.length) + "\r\n").getBytes(StandardCharsets.US_ASCII));
      for (String part : parts) {
        byte[] bytes = part.getBytes(StandardCharsets.UTF_8);
        out.write(('$' + Integer.toString(bytes.length) + "\r\n").getBytes(StandardCharsets.US_ASCII));
        out.write(bytes);
        out.write('\r');
        out.write('\n');
      }
      if (++unanswered >= COMMANDS_PER_FLUSH) {
        finish();
      }
    }

    /** Selects the database of the commands after it (nothing may be outstanding). */
    void select(int database) throws IOException {
      command("SELECT", Integer.toString(database));
      out.flush();
      unanswered--;
      String reply = readLine();
      if (!reply.equals("+OK")) {
        throw new IllegalStateException("SELECT " + database + ": Redis replied " + reply);
      }
    }

    private String readLine() throws IOException {
      StringBuilder line = new StringBuilder();
      int c;
      while ((c = in.read()) != -1 && c != '\r') {
        line.append((char) c);
      }
      in.read(); // '\n'
      return line.toString();
    }

    /** Flushes and reads every outstanding reply (all integers); fails on an error reply. */
    void finish() throws IOException {
      out.flush();
      for (; unanswered > 0; unanswered--) {
        int type = in.read();
        StringBuilder line = new StringBuilder();
        int c;
        while ((c = in.read()) != -1 && c != '\r') {
          line.append((char) c);
        }
        in.read(); // '\n'
        if (type != ':') {
          throw new IllegalStateException("Redis replied " + (char) type + line);
        }
      }
    }
  }

  /** Samples the used heap on a thread of its own and records the heap after every GC. */
  static final class HeapWatch {

    private final MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
    private final Set<String> heapPools = new HashSet<>();
    private final int sampleMs;
    private final AtomicLong peakUsed = new AtomicLong();
    private final AtomicLong peakAfterGc = new AtomicLong();
    private final AtomicLong gcs = new AtomicLong();
    private final List<Runnable> unsubscribe = new ArrayList<>();
    private volatile boolean running;
    private Thread sampler;

    HeapWatch(int sampleMs) {
      this.sampleMs = sampleMs;
      for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
        if (pool.getType() == MemoryType.HEAP) {
          heapPools.add(pool.getName());
        }
      }
    }

    /** The used heap after full GCs, before anything is watched. */
    long baselineAfterGc() throws InterruptedException {
      for (int i = 0; i < 3; i++) {
        System.gc();
        Thread.sleep(100);
      }
      return memory.getHeapMemoryUsage().getUsed();
    }

    void start() {
      running = true;
      NotificationListener listener =
          (notification, handback) -> {
            if (!running
                || !notification.getType().equals(GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION)) {
              return;
            }
            GarbageCollectionNotificationInfo info =
                GarbageCollectionNotificationInfo.from((CompositeData) notification.getUserData());
            long after = 0;
            for (Map.Entry<String, MemoryUsage> pool : info.getGcInfo().getMemoryUsageAfterGc().entrySet()) {
              if (heapPools.contains(pool.getKey())) {
                after += pool.getValue().getUsed();
              }
            }
            peakAfterGc.accumulateAndGet(after, Math::max);
            gcs.incrementAndGet();
          };
      for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
        NotificationEmitter emitter = (NotificationEmitter) gc;
        emitter.addNotificationListener(listener, null, null);
        unsubscribe.add(
            () -> {
              try {
                emitter.removeNotificationListener(listener);
              } catch (javax.management.ListenerNotFoundException e) {
                // already gone
              }
            });
      }
      sampler =
          new Thread(
              () -> {
                while (running) {
                  peakUsed.accumulateAndGet(memory.getHeapMemoryUsage().getUsed(), Math::max);
                  LockSupport.parkNanos(sampleMs * 1_000_000L);
                }
              },
              "heap-sampler");
      sampler.setDaemon(true);
      sampler.start();
    }

    void stop() throws InterruptedException {
      peakUsed.accumulateAndGet(memory.getHeapMemoryUsage().getUsed(), Math::max);
      running = false;
      sampler.join();
      unsubscribe.forEach(Runnable::run);
    }

    long peakUsed() {
      return peakUsed.get();
    }

    long peakAfterGc() {
      return peakAfterGc.get();
    }

    int gcs() {
      return (int) gcs.get();
    }
  }

  /** Every key is covered (as a template covering the whole family would). */
  static RegistrationLookup everyKeyCovered() {
    Instant now = Instant.now();
    return keys -> {
      Map<String, Registration> found = new HashMap<>(keys.size() * 2);
      for (String key : keys) {
        found.put(
            key,
            new Registration(key, "item", Map.of(), Duration.ofMinutes(10), now, now, RefreshPolicy.HOT, "items"));
      }
      return found;
    };
  }
}
