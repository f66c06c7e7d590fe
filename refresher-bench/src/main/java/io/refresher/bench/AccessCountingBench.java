package io.refresher.bench;

import io.refresher.client.AccessCounter;
import io.refresher.client.protocol.AccessProtocol;
import io.refresher.embedded.EmbeddedRedis;
import java.time.Duration;
import java.util.TreeMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.api.RKeys;
import org.redisson.client.codec.StringCodec;
import org.redisson.config.Config;
import ch.qos.logback.classic.Level;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How many reads per second the client library's access counting takes on this machine, and what
 * it costs Redis: reader threads call {@link AccessCounter#record} as fast as they can over a
 * skewed key population, the counter flushes in the background, and at the end every count is
 * checked against what reached the Redis buckets.
 *
 * <pre>
 *   java -cp refresher-bench/target/refresher-bench.jar io.refresher.bench.AccessCountingBench \
 *       [--threads 2] [--keys 10000] [--seconds 10]
 * </pre>
 */
public final class AccessCountingBench {

  public static void main(String[] args) throws Exception {
    ((ch.qos.logback.classic.Logger) LoggerFactory.getLogger(Logger.ROOT_LOGGER_NAME)).setLevel(Level.WARN);
    int threads = BenchArgs.intArg(args, "--threads", 2);
    int keys = BenchArgs.intArg(args, "--keys", 10_000);
    int seconds = BenchArgs.intArg(args, "--seconds", 10);
    String[] names = new String[keys];
    for (int i = 0; i < keys; i++) {
      names[i] = "item:" + i;
    }

    try (EmbeddedRedis redis = EmbeddedRedis.start()) {
      Config config = new Config();
      config.useSingleServer().setAddress(redis.url());
      RedissonClient redisson = Redisson.create(config);
      AccessCounter counter = AccessCounter.builder(redisson).flushInterval(Duration.ofSeconds(1)).build();
      AtomicBoolean stop = new AtomicBoolean();
      LongAdder reads = new LongAdder();
      CountDownLatch done = new CountDownLatch(threads);
      System.out.printf("%d reader threads, %d keys (skewed: a few hot, a long tail), %d s%n", threads, keys, seconds);
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
                "reader-" + t);
        reader.start();
      }
      Thread.sleep(seconds * 1000L);
      stop.set(true);
      done.await();
      double elapsed = (System.nanoTime() - started) / 1e9;
      counter.close();
      AccessCounter.Stats stats = counter.stats();
      long inRedis = countedInRedis(redisson);
      Map<String, Long> commands = commandCalls(redisson);

      System.out.printf("reads recorded:   %,d (%,.0f reads/s)%n", reads.sum(), reads.sum() / elapsed);
      System.out.printf("flushed / dropped: %,d / %,d; in Redis buckets: %,d (%s)%n",
          stats.flushed(), stats.dropped(), inRedis, inRedis == stats.flushed() ? "exact" : "MISMATCH");
      System.out.printf("Redis commands (calls, scripts' inner commands included): %s over %.1f s%n", commands, elapsed);
      redisson.shutdown();
    }
    System.exit(0);
  }

  private static long countedInRedis(RedissonClient redisson) {
    RKeys keys = redisson.getKeys();
    long total = 0;
    for (String bucket : keys.getKeysByPattern(AccessProtocol.PREFIX + "*")) {
      for (String count : redisson.<String, String>getMap(bucket, StringCodec.INSTANCE).readAllMap().values()) {
        total += Long.parseLong(count);
      }
    }
    return total;
  }

  /** Calls of the commands access counting uses, from INFO commandstats. */
  private static Map<String, Long> commandCalls(RedissonClient redisson) {
    Map<String, Long> calls = new TreeMap<>();
    RefreshThroughputBench.commandCalls(redisson).forEach((name, count) -> {
      if (name.startsWith("eval") || name.equals("hincrby") || name.equals("expire")) {
        calls.put(name, count);
      }
    });
    return calls;
  }
}
