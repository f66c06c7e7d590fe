package io.refresher.client.bench;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.refresher.client.AccessCounter;
import io.refresher.client.RefresherClient;
import io.refresher.client.driver.RedisDriver;
import io.refresher.client.jedis.JedisDriver;
import io.refresher.client.lettuce.LettuceDriver;
import io.refresher.client.redisson.RedissonDriver;
import io.refresher.embedded.EmbeddedRedis;
import java.net.URI;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.redisson.config.Config;

/**
 * Counted reads per second on each driver: {@code record(key)} on the application thread while
 * the client's own thread flushes the counts to a real Redis every second (embedded, loopback),
 * through Redisson, Lettuce or Jedis. The count itself is the core's and the same for all three;
 * what the driver adds is the flush's CPU on the other thread, which competes on a small machine.
 *
 * <p>Keys are drawn from 10,000 with a skew (a few hot, a long tail; the square of a uniform draw),
 * in a precomputed order, so that no draw is timed. The score is the time per call; 1 / score is
 * the reads per second one thread can count.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class DriverCountingBenchmark {

  static final int KEYS = 10_000;

  /** A skewed sequence of keys to read; {@link #next()} walks it. */
  @State(Scope.Thread)
  public static class Keys {
    static final int ORDER = 1 << 14;
    String[] order;
    int cursor;

    @Setup(Level.Trial)
    public void keys() {
      String[] names = new String[KEYS];
      for (int i = 0; i < KEYS; i++) {
        names[i] = "product:" + i;
      }
      SplittableRandom random = new SplittableRandom(42);
      order = new String[ORDER];
      for (int i = 0; i < ORDER; i++) {
        double u = random.nextDouble();
        order[i] = names[(int) (u * u * KEYS)];
      }
    }

    String next() {
      return order[cursor++ & (ORDER - 1)];
    }
  }

  /** A client on the driver, flushing every second (the default) to a real Redis. */
  @State(Scope.Benchmark)
  public static class Counting {
    @Param({"redisson", "lettuce", "jedis"})
    public String driver;

    /** The Redis to use ({@code redis://host:port}); empty: an embedded one for the trial. */
    @Param({""})
    public String redisUrl;

    EmbeddedRedis own;
    AutoCloseable library;
    RefresherClient client;

    @Setup(Level.Trial)
    public void start() {
      String url = redisUrl;
      if (url.isEmpty()) {
        own = EmbeddedRedis.start();
        url = own.url();
      }
      client = RefresherClient.builder(driverOn(url)).build();
    }

    @TearDown(Level.Trial)
    public void stop() throws Exception {
      client.close();
      AccessCounter.Stats stats = client.stats().access();
      // On stderr beside JMH's output: the flushes did reach Redis, through this driver.
      System.err.printf(
          "%s: %,d reads recorded, %,d flushed, %,d dropped, %,d unconfirmed, %d flush failures%n",
          driver, stats.recorded(), stats.flushed(), stats.dropped(), stats.unconfirmed(), stats.flushFailures());
      library.close();
      if (own != null) {
        own.close();
      }
    }

    private RedisDriver driverOn(String url) {
      URI uri = URI.create(url);
      switch (driver) {
        case "redisson" -> {
          Config config = new Config();
          config.setCodec(StringCodec.INSTANCE);
          config.useSingleServer().setAddress(url);
          RedissonClient redisson = Redisson.create(config);
          library = redisson::shutdown;
          return RedissonDriver.of(redisson);
        }
        case "lettuce" -> {
          RedisClient lettuce = RedisClient.create(RedisURI.create(uri.getHost(), uri.getPort()));
          library = lettuce::shutdown;
          return LettuceDriver.of(lettuce);
        }
        case "jedis" -> {
          redis.clients.jedis.RedisClient jedis = redis.clients.jedis.RedisClient.create(uri.getHost(), uri.getPort());
          library = jedis::close;
          return JedisDriver.of(jedis);
        }
        default -> throw new IllegalArgumentException("driver must be redisson, lettuce or jedis, was " + driver);
      }
    }
  }

  /** {@code record(key)}: one counted read, mostly of a key already pending (the common case). */
  @Benchmark
  public void record(Counting counting, Keys keys) {
    counting.client.record(keys.next());
  }

  /**
   * The same from two threads at once on one client (they meet on the hot keys' counters); the
   * score is each thread's time per call. On a 2-core machine this leaves the flush no core.
   */
  @Benchmark
  @Threads(2)
  public void recordTwoThreads(Counting counting, Keys keys) {
    counting.client.record(keys.next());
  }
}
