package io.refresher.bench.stampede;

import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/** (b) Naive cache-aside: GET; on a miss compute and SET with the TTL. No protection at all. */
final class CacheAside implements Strategy {

  private final StrategyContext context;
  private final LongAdder misses = new LongAdder();

  CacheAside(StrategyContext context) {
    this.context = context;
  }

  @Override
  public void prefill(long writtenMicros, long[] expiresMicros) {
    context.prefill(writtenMicros, expiresMicros, rank -> SourceValues.warm(context.kind().id(), rank, writtenMicros));
  }

  @Override
  public String read(int rank, int instance) throws Exception {
    String key = context.key(rank);
    String value = context.bucket(key).get();
    if (value != null) {
      return value;
    }
    misses.increment();
    value = context.source().compute(rank);
    context.writeWithTtl(rank, key, value);
    return value;
  }

  @Override
  public String description() {
    return "`GET`; on a miss the reader runs the source itself and writes the value with `SET PX ttl`. "
        + "Every reader that misses before the first write lands runs the source: the stampede itself.";
  }

  @Override
  public Map<String, Long> counters() {
    return Map.of("misses", misses.sum());
  }
}
