package io.refresher.bench;

import ch.qos.logback.classic.Level;
import io.refresher.access.AccessSettings;
import io.refresher.access.HotKeyTracker;
import io.refresher.access.HotSetListener;
import io.refresher.access.HotSetReport;
import io.refresher.cache.RedisAccessCounts;
import io.refresher.cache.RedisDueIndex;
import io.refresher.cache.RedisHotSetStore;
import io.refresher.cache.RedisPopularityStore;
import io.refresher.client.AccessCounter;
import io.refresher.embedded.EmbeddedRedis;
import io.refresher.registry.RefreshPolicy;
import io.refresher.registry.Registration;
import io.refresher.registry.RegistrationLookup;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the service's side of access counting costs: readers report reads of {@code --keys}
 * distinct keys through the client library, and the sampler ({@link HotKeyTracker}, the code the
 * {@code sample-access} job runs) folds them into popularity and recomputes the hot set once a
 * second. Prints each sampling's duration, the reads and distinct keys it consumed, the hot-set
 * size and the counter lag.
 *
 * <pre>
 *   java -cp refresher-bench/target/refresher-bench.jar io.refresher.bench.HotKeySamplingBench \
 *       [--keys 100000] [--rate 2000000] [--seconds 20] [--cap 100000]
 * </pre>
 */
public final class HotKeySamplingBench {

  public static void main(String[] args) throws Exception {
    ((ch.qos.logback.classic.Logger) LoggerFactory.getLogger(Logger.ROOT_LOGGER_NAME)).setLevel(Level.WARN);
    int keys = BenchArgs.intArg(args, "--keys", 100_000);
    int seconds = BenchArgs.intArg(args, "--seconds", 20);
    int cap = BenchArgs.intArg(args, "--cap", 100_000);
    int rate = BenchArgs.intArg(args, "--rate", 2_000_000);
    String[] names = new String[keys];
    for (int i = 0; i < keys; i++) {
      names[i] = "item:" + i;
    }

    try (EmbeddedRedis redis = EmbeddedRedis.start()) {
      Config config = new Config();
      config.useSingleServer().setAddress(redis.url());
      RedissonClient redisson = Redisson.create(config);
      AccessCounter counter =
          AccessCounter.builder(redisson).flushInterval(Duration.ofSeconds(1)).maxPendingKeys(keys + 1).build();
      AccessSettings settings =
          new AccessSettings(
              Duration.ofMinutes(1), 0.01, Duration.ofMinutes(5), cap, Duration.ofSeconds(1), Duration.ofSeconds(1), 1_000_000, cap);
      List<HotSetReport> reports = Collections.synchronizedList(new ArrayList<>());
      HotKeyTracker tracker =
          new HotKeyTracker(
              new RedisAccessCounts(redisson),
              new RedisPopularityStore(redisson),
              new RedisHotSetStore(redisson),
              everyKeyCovered(),
              new RedisDueIndex(redisson, 4),
              settings,
              HotSetListener.NONE,
              InstantSource.system());

      AtomicBoolean stop = new AtomicBoolean();
      Thread reader =
          new Thread(
              () -> {
                ThreadLocalRandom random = ThreadLocalRandom.current();
                long started = System.nanoTime();
                long recorded = 0;
                while (!stop.get()) {
                  for (int i = 0; i < 1024; i++) {
                    counter.record(names[random.nextInt(keys)]);
                  }
                  recorded += 1024;
                  // Paced at --rate reads per second.
                  long ahead = started + recorded * 1_000_000_000L / rate - System.nanoTime();
                  if (ahead > 0) {
                    java.util.concurrent.locks.LockSupport.parkNanos(ahead);
                  }
                }
              },
              "reader");
      reader.start();
      System.out.printf(
          "one reader thread, %,d reads/s over %,d distinct keys, cap %,d, %d s%n", rate, keys, cap, seconds);
      System.out.println("  tick ms | reads consumed | seconds | hot set | promoted | counter lag ms");
      long end = System.nanoTime() + seconds * 1_000_000_000L;
      List<Long> durations = new ArrayList<>();
      while (System.nanoTime() < end) {
        long started = System.nanoTime();
        HotSetReport report = tracker.tick();
        long tookMs = (System.nanoTime() - started) / 1_000_000;
        durations.add(tookMs);
        reports.add(report);
        System.out.printf(
            "  %7d | %14d | %7d | %7d | %8d | %14d%n",
            tookMs,
            report.readsCounted(),
            report.secondsConsumed(),
            report.hotSize(),
            report.promoted().size(),
            report.counterLagMillis());
        long sleep = 1000 - tookMs;
        if (sleep > 0) {
          Thread.sleep(sleep);
        }
      }
      stop.set(true);
      reader.join();
      counter.close();
      List<Long> sorted = new ArrayList<>(durations.subList(Math.min(3, durations.size()), durations.size()));
      Collections.sort(sorted);
      long reads = reports.stream().mapToLong(HotSetReport::readsCounted).sum();
      System.out.printf(
          "after warm-up: tick p50 %d ms, max %d ms; %,d reads consumed (%,.0f/s reported by the reader)%n",
          sorted.isEmpty() ? 0 : sorted.get(sorted.size() / 2),
          sorted.isEmpty() ? 0 : sorted.get(sorted.size() - 1),
          reads,
          counter.stats().recorded() / (double) seconds);
      redisson.shutdown();
    }
    System.exit(0);
  }

  /** Every key is covered (as a template covering the whole family would). */
  private static RegistrationLookup everyKeyCovered() {
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
