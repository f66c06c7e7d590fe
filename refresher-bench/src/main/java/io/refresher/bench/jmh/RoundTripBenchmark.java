package io.refresher.bench.jmh;

import io.refresher.client.redisson.RedissonDriver;
import io.refresher.redis.RedisCacheStore;
import io.refresher.client.Loader;
import io.refresher.client.RefresherClient;
import io.refresher.embedded.EmbeddedRedis;
import io.refresher.refresh.CacheStore;
import io.refresher.refresh.Fence;
import java.time.Duration;
import java.time.Instant;
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
import org.openjdk.jmh.annotations.Warmup;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.redisson.config.Config;

/**
 * Round trips to a real Redis (embedded, on this machine, loopback): what the in-memory benchmarks
 * leave out (Redisson, Netty, the server's script). One call at a time, so this is latency, not
 * throughput. Not a micro-benchmark: the figures move with the machine's load.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class RoundTripBenchmark {

  static final String CLIENT_KEY = "jmh:product:42";
  static final String SERVICE_KEY = "jmh:refreshed:42";

  /**
   * The Redis to use ({@code redis://host:port}); empty: an embedded one started for the trial.
   * The bench phase passes the run's own.
   */
  @State(Scope.Benchmark)
  public static class Redis {
    @Param({""})
    public String redisUrl;

    EmbeddedRedis own;
    RedissonClient redisson;
    RefresherClient client;
    RedisCacheStore store;
    ch.qos.logback.classic.Level logLevel;

    Duration ttl = Duration.ofHours(1);
    Loader loader = () -> ClientBenchmark.VALUE;
    Fence fence = new Fence(1, 1);
    CacheStore.ValueMeta meta;
    Duration physicalTtl = Duration.ofMinutes(10);

    @Setup(Level.Trial)
    public void start() {
      logLevel = Logs.quiet();
      String url = redisUrl;
      if (url.isEmpty()) {
        own = EmbeddedRedis.start();
        url = own.url();
      }
      Config config = new Config();
      config.setCodec(StringCodec.INSTANCE);
      config.useSingleServer().setAddress(url);
      redisson = Redisson.create(config);
      client = RefresherClient.builder(RedissonDriver.of(redisson)).build();
      // Loaded once (a client-written value of TTL 1 h that took ~0 ms): every read below finds it.
      client.get(CLIENT_KEY, ttl, loader);
      store = new RedisCacheStore(redisson);
      Instant computedAt = Instant.now();
      meta = new CacheStore.ValueMeta(computedAt, Duration.ofMillis(48), computedAt.plusSeconds(60));
      // Every write below must be applied, not refused (a refusal is a shorter script).
      CacheStore.WriteResult first = store.write(SERVICE_KEY, ClientBenchmark.VALUE, fence, 0, meta, physicalTtl, 20, null);
      if (!first.written()) {
        throw new IllegalStateException("the benchmark's write was refused: " + first);
      }
    }

    @TearDown(Level.Trial)
    public void stop() {
      try {
        client.close();
        redisson.getKeys().delete(CLIENT_KEY, SERVICE_KEY);
        redisson.shutdown(0, 2, TimeUnit.SECONDS); // no quiet period: the tiny run adds up every second
      } finally {
        if (own != null) {
          own.close();
        }
        Logs.restore(logLevel);
      }
    }
  }

  /** {@code get(key)}: a counted plain {@code GET}. */
  @Benchmark
  public String clientGet(Redis redis) {
    return redis.client.get(CLIENT_KEY);
  }

  /** {@code get(key, ttl, loader)} of a present value: the READ script (value and metadata), then XFetch. */
  @Benchmark
  public String clientGetWithLoader(Redis redis) {
    return redis.client.get(CLIENT_KEY, redis.ttl, redis.loader);
  }

  /** The service's value write: the fenced WRITE script (a batch of one, no lock to release), its reply parsed. */
  @Benchmark
  public CacheStore.WriteResult serviceWrite(Redis redis) {
    return redis.store.write(SERVICE_KEY, ClientBenchmark.VALUE, redis.fence, 0, redis.meta, redis.physicalTtl, 20, null);
  }
}
