package io.refresher.bench.jmh;

import io.refresher.redis.RedisCacheStore;
import io.refresher.refresh.CacheStore;
import io.refresher.refresh.Fence;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.SplittableRandom;
import java.util.StringJoiner;
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
import org.openjdk.jmh.annotations.Warmup;

/**
 * The Java side of the service's value write ({@link RedisCacheStore#write}), without the network:
 * the write queued for its batch ({@code BatchedScript}), the WRITE script's four keys (value,
 * metadata, lock token counter, lock) and eleven arguments, the call, then the reply parsed
 * (status, cleared failures, the key's recent compute durations) and handed back through its
 * future. On a {@link FakeRedisson}, so Redisson's encoding and Netty are not in it.
 *
 * <p>One thread and a reply that is there at once: every batch holds one write. What a batch of
 * many saves (one script call, one round trip for all) is Redisson's and the network's, which this
 * leaves out; each write's own keys, arguments and parsing are the same in any batch.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class WriteBenchmark {

  static final int KEYS = 1024;

  /** A store on the fake, replying WRITTEN with {@code recent} compute durations. */
  @State(Scope.Benchmark)
  public static class Store {
    /** Durations in the reply: 1 is a key's first write, 20 the default history ({@code refresh.ttr.history}). */
    @Param({"1", "20"})
    public int recent;

    RedisCacheStore store;
    String[] keys;
    int cursor;
    String value = ClientBenchmark.VALUE;
    Fence fence = new Fence(3, 18_342);
    long generation = 7;
    CacheStore.ValueMeta meta;
    Duration physicalTtl = Duration.ofSeconds(60 + 300 + 6);
    int history = 20;

    @Setup(Level.Trial)
    public void start() {
      SplittableRandom random = new SplittableRandom(7);
      StringJoiner durations = new StringJoiner(",");
      for (int i = 0; i < recent; i++) {
        durations.add(Long.toString(30 + random.nextInt(90)));
      }
      // MULTI with a string codec: integers come back as Long, the bulk string as String.
      store = new RedisCacheStore(FakeRedisson.replying(List.of(1L, 0L, durations.toString())));
      keys = new String[KEYS];
      for (int i = 0; i < KEYS; i++) {
        keys[i] = "product:" + i;
      }
      Instant computedAt = Instant.now();
      meta = new CacheStore.ValueMeta(computedAt, Duration.ofMillis(48), computedAt.plusSeconds(60));
    }
  }

  /** One value write: arguments built, fake reply parsed into a {@code WriteResult}. */
  @Benchmark
  public CacheStore.WriteResult write(Store s) {
    String key = s.keys[s.cursor++ & (KEYS - 1)];
    // No lock: the write then releases none (a held lock adds its name and owner, already strings).
    return s.store.write(key, s.value, s.fence, s.generation, s.meta, s.physicalTtl, s.history, null);
  }
}
