package io.refresher.bench.stampede;

import java.util.Map;

/**
 * One strategy's figures in one run, over the measured span. Latencies of the hot keys' reads
 * are split into the strategy's expiry windows and steady state, and given beside (a)'s reads at
 * the same moments ({@code floor...}), which the ratios are taken against.
 *
 * @param missesPerMillion reads (per million) that waited for the source: the value they returned
 *     was computed after they had started (a cache miss, or a recomputation in the read path)
 * @param stalePerMillion reads per million that returned a value older than the longest TTL (null
 *     for (a), whose values are never refreshed)
 * @param executionsPerKeyPerTtl source executions started in the span, per key and per TTL
 * @param duplicates executions that started less than half a TTL after the previous execution of
 *     the same key (two runs within one cycle)
 * @param windowShare the share of the measured span inside the strategy's expiry windows
 * @param commandsPerRead Redis commands its application sent, per read
 * @param serviceCommandsPerRead for (f), the service's Redis commands per read (0 for the others)
 */
record StrategyFigures(
    StrategyKind kind,
    long reads,
    long hotReads,
    long failures,
    double missesPerMillion,
    double hotMissesPerMillion,
    Double stalePerMillion,
    long executions,
    long hotExecutions,
    double executionsPerKeyPerTtl,
    double hotExecutionsPerKeyPerTtl,
    long duplicates,
    long hotDuplicates,
    Map<String, Long> executionsByCaller,
    Latency expiryHot,
    Latency steadyHot,
    Latency allReads,
    Latency floorExpiryHot,
    Latency floorSteadyHot,
    Latency floorAll,
    double windowShare,
    int windows,
    double commandsPerRead,
    double serviceCommandsPerRead,
    Map<String, Long> commands,
    Map<String, Long> counters,
    String description) {

  Latency.Ratios expiryRatios() {
    return expiryHot.over(floorExpiryHot);
  }

  Latency.Ratios steadyRatios() {
    return steadyHot.over(floorSteadyHot);
  }

  Latency.Ratios allRatios() {
    return allReads.over(floorAll);
  }
}
