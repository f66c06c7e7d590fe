package io.refresher.bench.stampede;

import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.LongAdder;

/**
 * (d) XFetch (Vattani, Chierichetti, Lowenstein, "Optimal Probabilistic Cache Stampede
 * Prevention", VLDB 2015): the value is stored with its compute time δ and expiry; a reader
 * recomputes early when {@code now − δ·β·ln(rand()) ≥ expiry}, synchronously, as published.
 */
final class XFetch implements Strategy {

  private final StrategyContext context;
  private final double beta;
  private final LongAdder misses = new LongAdder();
  private final LongAdder early = new LongAdder();

  XFetch(StrategyContext context, double beta) {
    this.context = context;
    this.beta = beta;
  }

  @Override
  public void prefill(long writtenMicros, long[] expiresMicros) {
    long delta = Math.round(context.cost().nominalMillis());
    context.prefill(
        writtenMicros,
        expiresMicros,
        rank -> envelope(delta, expiresMicros[rank] / 1_000, SourceValues.warm(context.kind().id(), rank, writtenMicros)));
  }

  @Override
  public String read(int rank, int instance) throws Exception {
    String key = context.key(rank);
    String stored = context.bucket(key).get();
    if (stored != null) {
      int first = stored.indexOf('|');
      int second = stored.indexOf('|', first + 1);
      long delta = Long.parseLong(stored, 0, first, 10);
      long expiry = Long.parseLong(stored, first + 1, second, 10);
      double random = 1.0 - ThreadLocalRandom.current().nextDouble(); // (0, 1]
      if (System.currentTimeMillis() - delta * beta * Math.log(random) < expiry) {
        return stored.substring(second + 1);
      }
      early.increment();
    } else {
      misses.increment();
    }
    long started = System.nanoTime();
    String value = context.source().compute(rank);
    long delta = Math.round((System.nanoTime() - started) / 1e6);
    long ttlMillis = context.ttl().nextMillis();
    context.bucket(key).set(envelope(delta, System.currentTimeMillis() + ttlMillis, value), Duration.ofMillis(ttlMillis));
    context.writes().addNow(rank, ttlMillis);
    return value;
  }

  private static String envelope(long deltaMillis, long expiresAtMillis, String value) {
    return deltaMillis + "|" + expiresAtMillis + "|" + value;
  }

  @Override
  public String description() {
    return String.format(
        Locale.ROOT,
        "one `GET` of the value stored as `δ|expiry|value` (δ: how long its computation took, measured by "
            + "the reader that ran it) with `PX ttl`. A reader recomputes, synchronously, when "
            + "`now − δ·β·ln(rand()) ≥ expiry` (β = %s) or when the key is missing, then `SET`s it; the "
            + "others keep reading the current value. No lock: two readers may draw an early "
            + "recomputation at once, and a missing key is computed by every reader that misses it.",
        beta == Math.rint(beta) ? String.format(Locale.ROOT, "%.0f", beta) : String.valueOf(beta));
  }

  @Override
  public Map<String, Long> counters() {
    return Map.of("misses", misses.sum(), "earlyRecomputations", early.sum());
  }
}
