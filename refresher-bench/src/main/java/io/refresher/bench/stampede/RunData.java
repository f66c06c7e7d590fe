package io.refresher.bench.stampede;

import java.util.List;
import java.util.Map;

/**
 * Everything one run (a scenario with a source cost) measured, before any figure is computed.
 * Times are wall-clock microseconds.
 *
 * @param learningStartMicros when Refresher's readers started (its access counts make the head hot)
 * @param warmMicros when every other strategy's values were written and their readers started
 * @param countFromMicros the start of the measured span ({@code warm + settle})
 * @param endMicros its end (the last intended read)
 * @param serviceHotSet the service's hot set when the others were warmed (its keys' refreshes
 *     were then aligned with the others' writes)
 * @param serviceMetrics the service's refresh counters over the whole run (failures and skips by kind)
 * @param serviceWarnings what the service logged at WARN or above during the run, by message
 */
record RunData(
    StampedeSettings settings,
    StampedeSettings.Combination combination,
    SourceCost cost,
    String run,
    long learningStartMicros,
    long warmMicros,
    long countFromMicros,
    long endMicros,
    Map<StrategyKind, StrategyData> strategies,
    List<ExecutionLog.Execution> executions,
    Map<String, Long> serviceCommands,
    Map<String, Long> serverCommandStats,
    List<String> serviceHotSet,
    Map<String, String> alignOutcomes,
    Map<String, Object> serviceMetrics,
    Map<String, Integer> serviceWarnings,
    List<MachineMonitor.CpuSample> cpu,
    List<MachineMonitor.GcPause> pauses) {

  /**
   * One strategy's part of the run.
   *
   * @param commands the Redis commands its application sent over the measured span, by name
   */
  record StrategyData(
      StrategyKind kind,
      ReadLog reads,
      List<WriteLog.Write> writes,
      Map<String, Long> commands,
      Map<String, Long> counters,
      String description,
      long failures,
      String firstFailure,
      long stuckReaders) {}

  long ttlMicros() {
    return settings.ttl().toMillis() * 1_000;
  }
}
