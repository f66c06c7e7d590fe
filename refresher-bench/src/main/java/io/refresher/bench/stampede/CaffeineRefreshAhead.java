package io.refresher.bench.stampede;

import com.github.benmanes.caffeine.cache.CacheLoader;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.LoadingCache;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * (e) An in-process refresh-ahead cache per application instance in front of Redis: Caffeine with
 * {@code refreshAfterWrite(ttl/2)} and {@code expireAfterWrite(ttl)}, whose loader reads Redis and,
 * when Redis has nothing, runs the source and writes Redis. A read that finds the entry past its
 * refresh time gets the current value at once while the refresh runs in the background.
 */
final class CaffeineRefreshAhead implements Strategy {

  private final StrategyContext context;
  private final LoadingCache<String, String>[] caches;
  private final ExecutorService refreshers;
  private final LongAdder loads = new LongAdder();
  private final LongAdder reloads = new LongAdder();
  private final LongAdder redisHits = new LongAdder();
  private final LongAdder sourceRuns = new LongAdder();

  @SuppressWarnings("unchecked")
  CaffeineRefreshAhead(StrategyContext context) {
    this.context = context;
    AtomicInteger threads = new AtomicInteger();
    this.refreshers =
        Executors.newFixedThreadPool(
            16,
            runnable -> {
              Thread thread = new Thread(runnable, "stampede-caffeine-refresh-" + threads.incrementAndGet());
              thread.setDaemon(true);
              return thread;
            });
    Duration ttl = Duration.ofMillis(context.ttl().nominalMillis());
    caches = new LoadingCache[context.instances()];
    for (int i = 0; i < caches.length; i++) {
      caches[i] =
          Caffeine.newBuilder()
              .maximumSize(context.keys())
              .expireAfterWrite(ttl)
              .refreshAfterWrite(ttl.dividedBy(2))
              .executor(refreshers)
              .build(
                  new CacheLoader<String, String>() {
                    @Override
                    public String load(String key) throws Exception {
                      loads.increment();
                      return fromRedisOrSource(key);
                    }

                    @Override
                    public String reload(String key, String oldValue) throws Exception {
                      reloads.increment();
                      return fromRedisOrSource(key);
                    }
                  });
    }
  }

  private String fromRedisOrSource(String key) throws Exception {
    String value = context.bucket(key).get();
    if (value != null) {
      redisHits.increment();
      return value;
    }
    sourceRuns.increment();
    int rank = StrategyContext.rankOf(key);
    value = context.source().compute(rank);
    context.writeWithTtl(rank, key, value);
    return value;
  }

  @Override
  public void prefill(long writtenMicros, long[] expiresMicros) {
    // Redis is warm; each instance's cache fills from it on its first reads.
    context.prefill(writtenMicros, expiresMicros, rank -> SourceValues.warm(context.kind().id(), rank, writtenMicros));
  }

  @Override
  public String read(int rank, int instance) {
    return caches[instance].get(context.key(rank));
  }

  @Override
  public String description() {
    return "one Caffeine cache per application instance (" + context.instances() + " instances, reads spread "
        + "round robin) with `refreshAfterWrite(ttl/2)`, `expireAfterWrite(ttl)` and a loader that `GET`s "
        + "Redis and, when Redis has nothing, runs the source and `SET PX ttl`. A read past the refresh time "
        + "returns the cached value and reloads it in the background (16 refresh threads per application); "
        + "a read of an absent or expired entry waits for the load (one per key and instance). Each "
        + "instance refreshes on its own, and an entry can be served past its value's TTL (its "
        + "expiry counts from when the instance loaded it, not from when the value was computed).";
  }

  @Override
  public Map<String, Long> counters() {
    return Map.of(
        "cacheLoads", loads.sum(), "cacheReloads", reloads.sum(), "redisHits", redisHits.sum(), "sourceRuns", sourceRuns.sum());
  }

  @Override
  public void close() throws InterruptedException {
    refreshers.shutdownNow();
    refreshers.awaitTermination(5, TimeUnit.SECONDS);
  }
}
