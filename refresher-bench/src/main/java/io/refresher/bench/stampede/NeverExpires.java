package io.refresher.bench.stampede;

import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/** (a) The latency floor: values written once without a TTL, read with a plain GET; they never expire. */
final class NeverExpires implements Strategy {

  private final StrategyContext context;
  private final LongAdder misses = new LongAdder();

  NeverExpires(StrategyContext context) {
    this.context = context;
  }

  @Override
  public void prefill(long writtenMicros, long[] expiresMicros) {
    context.prefill(writtenMicros, null, rank -> SourceValues.warm(context.kind().id(), rank, writtenMicros));
  }

  @Override
  public String read(int rank, int instance) throws Exception {
    String key = context.key(rank);
    String value = context.bucket(key).get();
    if (value == null) { // never, unless Redis lost it
      misses.increment();
      value = context.source().compute(rank);
      context.bucket(key).set(value);
    }
    return value;
  }

  @Override
  public String description() {
    return "every key written once at warm-up without a TTL; a read is one `GET`. Nothing ever expires "
        + "or recomputes: the latency floor of this machine, Redis client and harness, which every other "
        + "strategy is held against (its values are never refreshed, so it has no staleness figure).";
  }

  @Override
  public Map<String, Long> counters() {
    return Map.of("misses", misses.sum());
  }
}
