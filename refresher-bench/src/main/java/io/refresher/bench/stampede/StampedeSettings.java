package io.refresher.bench.stampede;

import io.refresher.bench.BenchContext;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The figures of one mode of the phase (full, {@code --quick}, {@code --tiny}).
 *
 * @param keys keys per strategy (each strategy has its own)
 * @param hotKeys the hot head: the most read ranks, what "hot keys" means in the report
 * @param readsPerSecond the open-loop arrival rate of each strategy's readers
 * @param ttl the values' TTL (jittered ± 10 % in that scenario)
 * @param learning how long Refresher's readers read before the others start (its access counts
 *     make the hot head hot), also the others' warm-up lead
 * @param measured how long every strategy is read and measured after that
 * @param settle the start of the measured span left out of every figure (connections, JIT, caches)
 * @param halfLife the service's access-rate half-life
 * @param readerThreads reader threads per strategy (an application's request threads)
 * @param poolSize database connections per strategy (an application's pool)
 * @param instances application instances per strategy (in-process caches and single flights are per instance)
 * @param runs the scenario × cost combinations, by cost id ({@code sleep20}, {@code sleep200}, {@code cpu})
 */
record StampedeSettings(
    String mode,
    int keys,
    int hotKeys,
    double zipfExponent,
    double readsPerSecond,
    Duration ttl,
    Duration learning,
    Duration measured,
    Duration settle,
    Duration halfLife,
    int readerThreads,
    int poolSize,
    int instances,
    List<Combination> runs) {

  /** One run: a scenario with a source cost. */
  record Combination(Scenario scenario, String costId) {}

  static StampedeSettings of(BenchContext context) {
    String mode = context.tiny() ? "tiny" : context.quick() ? "quick" : "full";
    int keys = context.pick(10_000, 2_000, 100);
    Duration ttl = Duration.ofSeconds(context.pick(10, 10, 3));
    List<Combination> runs = new ArrayList<>();
    List<String> costs =
        context.tiny() ? List.of("sleep20") : context.quick() ? List.of("sleep20", "sleep200") : List.of("sleep20", "sleep200", "cpu");
    List<Scenario> scenarios = context.tiny() ? List.of(Scenario.SYNCHRONISED) : List.of(Scenario.values());
    for (String cost : costs) {
      for (Scenario scenario : scenarios) {
        runs.add(new Combination(scenario, cost));
      }
    }
    return new StampedeSettings(
        mode,
        keys,
        hotOf(keys),
        1.0,
        context.pick(1_000, 500, 100),
        ttl,
        Duration.ofSeconds(context.pick(12, 8, 3)),
        Duration.ofMillis(context.pick(33_000, 23_000, 6_500)),
        Duration.ofMillis(context.pick(2_000, 2_000, 1_000)),
        Duration.ofSeconds(context.pick(8, 4, 1)),
        96,
        32,
        4,
        List.copyOf(runs));
  }

  private static int hotOf(int keys) {
    return Math.max(5, (int) Math.ceil(keys * 0.01));
  }

  /**
   * The settings of one run: the key count and read rate fit the source's cost to this machine.
   * A cache-aside tail misses on almost every read of a key read less than once per TTL, so the
   * tail, not the hot head, sets the database's load: at 200 ms a query holds a connection, and a
   * 10,000-key tail at 1,000 reads/s would keep ~49 of each application's connections busy on
   * misses alone (7 applications and the service share PostgreSQL's 300); a 30 ms CPU-bound query
   * runs on the same 2 cores as everything else, and a 2,000-key tail would need ~16 of them. So
   * the 200 ms runs use at most 2,000 keys at 500 reads/s and the CPU-bound runs 50 keys.
   */
  StampedeSettings forRun(Combination run) {
    int runKeys = keys;
    double rate = readsPerSecond;
    if (run.costId().equals("sleep200") && keys > 2_000) {
      runKeys = 2_000;
      rate = Math.min(rate, 500);
    } else if (run.costId().equals("cpu")) {
      runKeys = Math.min(keys, 50);
      rate = Math.min(rate, 500);
    }
    return new StampedeSettings(
        mode, runKeys, hotOf(runKeys), zipfExponent, rate, ttl, learning, measured, settle, halfLife,
        readerThreads, poolSize, instances, runs);
  }

  /** The window around a moment a hot value would expire: this long before it ... */
  Duration windowBefore() {
    return Duration.ofMillis(Math.min(1_500, ttl.toMillis() * 15 / 100));
  }

  /** ... to this long after it. */
  Duration windowAfter() {
    return Duration.ofMillis(Math.min(2_000, ttl.toMillis() * 20 / 100));
  }

  /**
   * The service's hot threshold (reads/s): the rate of the rank twice as deep as the hot head, so
   * the head is read at twice the threshold or more and the service's hot set is about twice the
   * head (a user sets the threshold from their traffic the same way).
   */
  double hotThreshold() {
    return readsPerSecond / (ZipfKeys.harmonic(keys, zipfExponent) * Math.pow(2.0 * hotKeys, zipfExponent));
  }
}
