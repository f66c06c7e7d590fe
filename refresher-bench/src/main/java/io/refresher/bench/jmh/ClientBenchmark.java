package io.refresher.bench.jmh;

import io.refresher.client.EarlyRecompute;
import io.refresher.client.redisson.RedissonDriver;
import io.refresher.client.Loader;
import io.refresher.client.RefresherClient;
import io.refresher.client.protocol.CacheKeys;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

/**
 * What the client library does on an application thread per count and per read, without the
 * network: the real {@link RefresherClient} on a {@link FakeRedisson}, one thread.
 *
 * <p>Keys are drawn from 10,000 with a skew (a few hot, a long tail; the square of a uniform draw),
 * in a precomputed order, so the counters' map is looked up at many places and no draw is timed.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class ClientBenchmark {

  static final int KEYS = 10_000;
  /** A product as JSON, 0.4 KB; its size does not matter here (nothing copies it on our side). */
  static final String VALUE = "{\"id\":42,\"name\":\"Phone Pro\",\"price\":\"799.00\",\"tags\":[" + "\"tag\",".repeat(60) + "\"last\"]}";

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

  /** A client on the fake, with the default options (flush every second, which the fake answers). */
  @State(Scope.Benchmark)
  public static class Counting {
    RefresherClient client;

    @Setup(Level.Trial)
    public void start() {
      client = RefresherClient.builder(RedissonDriver.of(FakeRedisson.replying(1L))).build();
    }

    @TearDown(Level.Trial)
    public void stop() {
      client.close();
    }
  }

  /**
   * A client whose every read finds a present value, far from its expiry: written by a client
   * ({@code writer=client}: epoch 0, XFetch decides) or by the service ({@code writer=service}:
   * epoch above 0, only the logical expiry is compared).
   */
  @State(Scope.Benchmark)
  public static class Reading {
    @Param({"client", "service"})
    public String writer;

    RefresherClient client;
    Duration ttl = Duration.ofHours(1);
    /** Never called: a present value far from expiry is returned as it is. A call fails the benchmark. */
    Loader loader =
        () -> {
          throw new IllegalStateException("the benchmark's value was recomputed: its expiry is too near");
        };

    @Setup(Level.Trial)
    public void start() {
      long expiresAt = System.currentTimeMillis() + Duration.ofHours(1).toMillis();
      // Redisson's StringCodec hands a MULTI reply over as strings: {value, delta, expiresAt, epoch}.
      List<Object> reply = Arrays.asList(VALUE, "48", Long.toString(expiresAt), writer.equals("service") ? "3" : "0");
      client = RefresherClient.builder(RedissonDriver.of(FakeRedisson.replying(reply))).build();
    }

    @TearDown(Level.Trial)
    public void stop() {
      client.close();
    }
  }

  /** The fake's own cost, to subtract from {@link #get}: the same two proxy calls, nothing else. */
  @State(Scope.Benchmark)
  public static class Fake {
    RedissonClient redisson = FakeRedisson.replying(Arrays.asList(VALUE, "48", "0", "0"));
    String key = "product:42";
    List<Object> keys = List.of(key, CacheKeys.metaKey(key));
    String script = "return 1";
  }

  /** XFetch's inputs for a value 2 s before its expiry that took 48 ms to compute. */
  @State(Scope.Thread)
  public static class Xfetch {
    EarlyRecompute early = new EarlyRecompute();
    long now;
    long delta = 48;
    long expiresAt;

    @Setup(Level.Trial)
    public void times() {
      now = System.currentTimeMillis();
      expiresAt = now + 2_000;
    }
  }

  /** 1,000 distinct keys read once each between flushes. */
  @State(Scope.Benchmark)
  public static class NewKeys {
    static final int COUNT = 1_000;
    RefresherClient client;
    String[] keys;

    @Setup(Level.Trial)
    public void start() {
      // A long interval: only the benchmark's own flush takes the counts.
      client = RefresherClient.builder(RedissonDriver.of(FakeRedisson.replying(1L))).flushInterval(Duration.ofSeconds(60)).build();
      keys = new String[COUNT];
      for (int i = 0; i < COUNT; i++) {
        keys[i] = "product:" + i;
      }
    }

    @TearDown(Level.Trial)
    public void stop() {
      client.close();
    }
  }

  /** {@code record(key)}: one counted read of a key already pending (the common case). */
  @Benchmark
  public void record(Counting counting, Keys keys) {
    counting.client.record(keys.next());
  }

  /**
   * The same from two threads at once on one client (same skew, so they meet on the hot keys'
   * counters); the score is each thread's time per call. On a 2-core machine this is all of it.
   */
  @Benchmark
  @Threads(2)
  public void recordTwoThreads(Counting counting, Keys keys) {
    counting.client.record(keys.next());
  }

  /**
   * {@code record(key)} of a key not pending since the last flush, with that key's share of the
   * flush's Java side (drain, shards, script arguments): 1,000 new keys, then {@code flush()}.
   */
  @Benchmark
  @OperationsPerInvocation(NewKeys.COUNT)
  public boolean recordNewKeysThenFlush(NewKeys state) {
    RefresherClient client = state.client;
    for (String key : state.keys) {
      client.record(key);
    }
    return client.flush();
  }

  /**
   * {@code get(key, ttl, loader)} of a present value: count, read script's arguments and reply,
   * the expiry or XFetch decision; the network left out.
   */
  @Benchmark
  public String get(Reading reading, Keys keys) {
    return reading.client.get(keys.next(), reading.ttl, reading.loader);
  }

  /** XFetch's decision alone (thread-local random, a logarithm, a comparison). */
  @Benchmark
  public boolean shouldRecompute(Xfetch x) {
    return x.early.shouldRecompute(x.now, x.delta, x.expiresAt);
  }

  /** Baseline: the fake's two proxy calls, which {@link #get} includes. */
  @Benchmark
  public void fakeEvalOnly(Fake fake, Blackhole blackhole) {
    blackhole.consume(
        fake.redisson
            .getScript(StringCodec.INSTANCE)
            .<Object>eval(fake.key, RScript.Mode.READ_ONLY, fake.script, RScript.ReturnType.MULTI, fake.keys));
  }
}
