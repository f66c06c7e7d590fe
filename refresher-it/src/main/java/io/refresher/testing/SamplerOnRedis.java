package io.refresher.testing;

import io.refresher.access.AccessSettings;
import io.refresher.access.DecayingRate;
import io.refresher.access.HotKeyTracker;
import io.refresher.access.HotSetListener;
import io.refresher.access.PopularityStore;
import io.refresher.redis.RedisAccessCounts;
import io.refresher.redis.RedisDueIndex;
import io.refresher.redis.RedisHotSetStore;
import io.refresher.redis.RedisPopularityStore;
import io.refresher.client.protocol.AccessProtocol;
import io.refresher.registry.RefreshPolicy;
import io.refresher.registry.Registration;
import io.refresher.registry.RegistrationLookup;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.redisson.api.RBatch;
import org.redisson.api.RedissonClient;
import org.redisson.api.RScript;
import org.redisson.client.codec.StringCodec;

/**
 * The access sampler as a replica runs it, on a real Redis: the service's Redis stores (counters,
 * popularity, hot set, due index), every key covered by a registration, and a clock that stands
 * still until the test moves it. Reads are reported as applications report them ({@link
 * AccessProtocol}: {@code HINCRBY} and {@code EXPIRE} on the per-second buckets).
 */
public final class SamplerOnRedis {

  /** A clock the test moves. */
  public static final class Clock implements InstantSource {
    private final AtomicLong millis;

    public Clock(long millis) {
      this.millis = new AtomicLong(millis);
    }

    public void advance(Duration by) {
      millis.addAndGet(by.toMillis());
    }

    @Override
    public long millis() {
      return millis.get();
    }

    @Override
    public Instant instant() {
      return Instant.ofEpochMilli(millis());
    }
  }

  /** KEYS: bucket. ARGV: TTL seconds, then key, reads pairs. */
  private static final String ADD_COUNTS =
      """
      for i = 2, #ARGV, 2 do
        redis.call('HINCRBY', KEYS[1], ARGV[i], ARGV[i + 1])
      end
      redis.call('EXPIRE', KEYS[1], ARGV[1])
      return 1
      """;

  private SamplerOnRedis() {}

  /** A sampler on {@code redisson}, as one replica runs it. */
  public static HotKeyTracker tracker(RedissonClient redisson, AccessSettings settings, InstantSource clock) {
    return new HotKeyTracker(
        new RedisAccessCounts(redisson),
        new RedisPopularityStore(redisson),
        new RedisHotSetStore(redisson),
        everyKeyCovered(),
        new RedisDueIndex(redisson, 4),
        settings,
        HotSetListener.NONE,
        clock);
  }

  /** The newest second a sampler consumes at {@code nowMillis}. */
  public static long lastCompleteSecond(AccessSettings settings, long nowMillis) {
    return Math.floorDiv(nowMillis - settings.settle().toMillis(), 1000L) - 1;
  }

  /**
   * Reports these reads in {@code second}, in one pipeline, as a reader flushing its counts does:
   * {@code HINCRBY} and {@code EXPIRE} per bucket (a script per shard, as the client library sends
   * them).
   */
  public static void report(RedissonClient redisson, long second, Map<String, Long> reads) {
    Map<String, List<Object>> byBucket = new HashMap<>();
    for (Map.Entry<String, Long> read : reads.entrySet()) {
      String bucket = AccessProtocol.bucketKey(AccessProtocol.shardOf(read.getKey()), second);
      List<Object> args = byBucket.computeIfAbsent(bucket, b -> new ArrayList<>(List.of(Integer.toString(AccessProtocol.BUCKET_TTL_SECONDS))));
      args.add(read.getKey());
      args.add(Long.toString(read.getValue()));
    }
    RBatch batch = redisson.createBatch();
    byBucket.forEach(
        (bucket, args) ->
            batch
                .getScript(StringCodec.INSTANCE)
                .evalAsync(bucket, RScript.Mode.READ_WRITE, ADD_COUNTS, RScript.ReturnType.INTEGER, List.of(bucket), args.toArray()));
    batch.execute();
  }

  /**
   * How many reads each key's score stands for, all read in {@code second}: its score over that
   * second's weight (0 for a key without a score).
   */
  public static Map<String, Double> countedReads(
      PopularityStore popularity, DecayingRate decay, Collection<String> keys, long second) {
    PopularityStore.State state = popularity.state().orElseThrow();
    double weight = decay.weight((second + 1) * 1000, state.landmarkMillis());
    Map<String, Double> scores = popularity.scores(keys);
    Map<String, Double> counted = new HashMap<>(keys.size() * 2);
    for (String key : keys) {
      counted.put(key, scores.getOrDefault(key, 0.0) / weight);
    }
    return counted;
  }

  private static RegistrationLookup everyKeyCovered() {
    Instant registered = Instant.parse("2024-01-01T00:00:00Z");
    return keys -> {
      Map<String, Registration> found = new HashMap<>(keys.size() * 2);
      for (String key : keys) {
        found.put(
            key,
            new Registration(key, "item", Map.of(), Duration.ofMinutes(10), registered, registered, RefreshPolicy.HOT, "items"));
      }
      return found;
    };
  }
}
