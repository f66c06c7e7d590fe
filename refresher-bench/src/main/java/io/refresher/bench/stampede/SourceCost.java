package io.refresher.bench.stampede;

/**
 * What one recomputation costs the database: {@code bench_compute(run, strategy, id, cost)} reads
 * {@code cost} as {@code sleep:<ms>} ({@code pg_sleep}) or {@code cpu:<n>} (a sum over {@code n}
 * generated rows, sized at the start of the phase to take about 30 ms on this machine).
 *
 * @param id short name, used in file names and summary.json
 * @param label how the report names it
 * @param argument the {@code cost} argument of {@code bench_compute}
 * @param nominalMillis what one execution costs on an idle database (measured for the CPU one)
 */
record SourceCost(String id, String label, String argument, double nominalMillis) {

  static SourceCost sleep(int millis) {
    return new SourceCost("sleep" + millis, "pg_sleep " + millis + " ms", "sleep:" + millis, millis);
  }

  static SourceCost cpu(long rows, double measuredMillis) {
    return new SourceCost(
        "cpu",
        String.format(java.util.Locale.ROOT, "CPU-bound aggregate (sum over %,d rows, %.0f ms idle)", rows, measuredMillis),
        "cpu:" + rows,
        measuredMillis);
  }
}
