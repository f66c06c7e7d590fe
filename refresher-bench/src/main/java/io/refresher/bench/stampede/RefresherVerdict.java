package io.refresher.bench.stampede;

import io.refresher.bench.report.Fmt;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Refresher (f) against the targets in one run, judged on the hot keys (the stampede
 * workload): 0 misses per million reads, 0 duplicate executions, read p99 within 1.05× and max
 * within 2× of (a) at the same moments, in the expiry windows and in steady state. Where a target
 * is missed, the reasons are taken from what the run measured: which reads were slow, whether
 * they waited for the source, started late, overlapped a GC pause or a saturated CPU, and what
 * (a) did at the same moment.
 */
final class RefresherVerdict {

  static final double P99_TARGET = 1.05;
  static final double MAX_TARGET = 2.0;

  final boolean noHotMisses;
  final boolean noHotDuplicates;
  final double p99Expiry;
  final double p99Steady;
  final double maxExpiry;
  final double maxSteady;
  final List<String> reasons = new ArrayList<>();
  final Map<String, Object> evidence = new LinkedHashMap<>();

  private final RunFigures figures;
  private final StrategyFigures f;

  private RefresherVerdict(RunFigures figures) {
    this.figures = figures;
    this.f = figures.strategies.get(StrategyKind.REFRESHER);
    noHotMisses = f.hotMissesPerMillion() == 0;
    noHotDuplicates = f.hotDuplicates() == 0;
    p99Expiry = f.expiryRatios().p99();
    p99Steady = f.steadyRatios().p99();
    maxExpiry = f.expiryRatios().max();
    maxSteady = f.steadyRatios().max();
  }

  static RefresherVerdict of(RunFigures figures) {
    RefresherVerdict verdict = new RefresherVerdict(figures);
    verdict.explain();
    return verdict;
  }

  boolean p99Met() {
    return within(p99Expiry, P99_TARGET) && within(p99Steady, P99_TARGET);
  }

  boolean maxMet() {
    return within(maxExpiry, MAX_TARGET) && within(maxSteady, MAX_TARGET);
  }

  boolean allMet() {
    return noHotMisses && noHotDuplicates && p99Met() && maxMet();
  }

  private static boolean within(double ratio, double target) {
    return Double.isNaN(ratio) || ratio <= target;
  }

  /** One line: each target, its figure, met or not. */
  String summary() {
    return String.format(
        Locale.ROOT,
        "hot-key misses %s per million: %s; duplicate executions of hot keys %d: %s; read p99 %s (expiry window) / %s (steady) of (a)'s: %s; max %s / %s: %s",
        Fmt.number(Math.round(f.hotMissesPerMillion())),
        Fmt.met(noHotMisses),
        f.hotDuplicates(),
        Fmt.met(noHotDuplicates),
        ratio(p99Expiry),
        ratio(p99Steady),
        Fmt.met(p99Met()),
        ratio(maxExpiry),
        ratio(maxSteady),
        Fmt.met(maxMet()));
  }

  static String ratio(double ratio) {
    return Double.isNaN(ratio) ? "n/a" : Fmt.ratio(ratio);
  }

  private void explain() {
    RunData data = figures.data();
    ReadLog log = data.strategies().get(StrategyKind.REFRESHER).reads();
    ReadLog floor = data.strategies().get(StrategyKind.NEVER_EXPIRES).reads();
    ExpiryWindows window = figures.windows.get(StrategyKind.REFRESHER);
    if (!noHotMisses) {
      explainMisses(log);
    }
    if (!noHotDuplicates) {
      explainDuplicates();
    }
    if (!within(p99Expiry, P99_TARGET)) {
      explainP99("in the expiry windows", true, log, floor, window, f.floorExpiryHot(), f.expiryHot());
    }
    if (!within(p99Steady, P99_TARGET)) {
      explainP99("in steady state", false, log, floor, window, f.floorSteadyHot(), f.steadyHot());
    }
    if (!within(maxExpiry, MAX_TARGET)) {
      explainMax("in the expiry windows", true, log, floor, window);
    }
    if (!within(maxSteady, MAX_TARGET)) {
      explainMax("in steady state", false, log, floor, window);
    }
  }

  private void explainMisses(ReadLog log) {
    RunData data = figures.data();
    Map<Integer, List<long[]>> serviceRuns = new LinkedHashMap<>();
    for (ExecutionLog.Execution e : figures.executions.get(StrategyKind.REFRESHER)) {
      if (e.caller().equals("service")) {
        serviceRuns.computeIfAbsent(e.rank(), r -> new ArrayList<>()).add(new long[] {e.startMicros(), e.endMicros()});
      }
    }
    java.util.Set<Integer> hotSet = new java.util.HashSet<>();
    for (String key : data.serviceHotSet()) {
      hotSet.add(StrategyContext.rankOf(key));
    }
    int notKept = 0;
    int late = 0;
    int misses = 0;
    long longestGap = 0;
    List<String> examples = new ArrayList<>();
    long ttl = data.ttlMicros();
    for (int i = 0; i < log.size(); i++) {
      if (!log.done[i] || !figures.counted(log.intendedWallMicros[i]) || !figures.isHot(log.ranks[i]) || !log.waitedForSource(i)) {
        continue;
      }
      misses++;
      long at = log.startWallMicros[i];
      long lastEnd = Long.MIN_VALUE;
      for (long[] run : serviceRuns.getOrDefault(log.ranks[i], List.of())) {
        if (run[1] <= at) {
          lastEnd = Math.max(lastEnd, run[1]);
        }
      }
      if (!hotSet.contains(log.ranks[i]) && lastEnd == Long.MIN_VALUE) {
        notKept++;
      } else {
        late++;
        if (lastEnd != Long.MIN_VALUE) {
          longestGap = Math.max(longestGap, at - lastEnd);
        }
      }
      if (examples.size() < 5) {
        examples.add(String.format(Locale.ROOT, "rank %d at %+.2f s%s", log.ranks[i], (at - data.warmMicros()) / 1e6,
            lastEnd == Long.MIN_VALUE ? " (never computed by the service)" : String.format(Locale.ROOT, ", the service's last computation of it %.2f s before", (at - lastEnd) / 1e6)));
      }
    }
    Map<String, Object> failures = new LinkedHashMap<>();
    data.serviceMetrics().forEach((name, value) -> {
      if (name.startsWith("refresher.source.stampede.failed.") || name.equals("refresher.refresh.failed")) {
        failures.put(name.replace("refresher.source.stampede.", ""), value);
      }
    });
    evidence.put("hotMisses", misses);
    evidence.put("hotMissesOfKeysTheServiceDidNotKeep", notKept);
    evidence.put("hotMissesAfterAMissingRefresh", late);
    evidence.put("longestWaitSinceTheServicesLastComputationMillis", longestGap / 1e3);
    evidence.put("hotMissExamples", examples);
    evidence.put("serviceFailures", failures);
    evidence.put("serviceWarnings", data.serviceWarnings());
    StringBuilder text = new StringBuilder(String.format(Locale.ROOT, "%d reads of hot keys waited for the source", misses));
    if (notKept > 0) {
      text.append(String.format(Locale.ROOT,
          "; %d of them read a key the service was not keeping (not in its hot set when the others were warmed, never computed by it: its access rate, learned over %d s of reads, had not reached the threshold of %.2f reads/s); a longer learning phase, a lower `access.hotThreshold`, or registering the head with policy `always` would have covered it",
          notKept, data.settings().learning().toSeconds(), data.settings().hotThreshold()));
    }
    if (late > 0) {
      text.append(String.format(Locale.ROOT,
          "; %d read a key the service keeps whose next refresh had not come in time (up to %.1f s after the service's last computation of the key, TTL %d s)",
          late, longestGap / 1e6, data.settings().ttl().toSeconds()));
      if (!failures.isEmpty()) {
        text.append(String.format(Locale.ROOT, ". The service's refreshes failed in this run: %s", failures));
      }
      String warnings = warningSummary(data.serviceWarnings());
      if (!warnings.isEmpty()) {
        text.append("; it logged ").append(warnings);
      }
      text.append(". A refresh that fails is retried after `refresh.retryBase`; a gap over a TTL means the retry was lost as well. What would: "
          + "the service's Redis client not failing under the burst (it runs on the same 2 cores as the 7 applications here; a larger "
          + "`redis.connectionPoolSize` or `redis.timeout` for it, or Redis and the service on their own cores), or a longer `refresh.ttr.min`");
    }
    text.append(" (e.g. ").append(String.join("; ", examples)).append(").");
    reasons.add(text.toString());
  }

  /** The service's most frequent warnings, "n× message", at most four. */
  static String warningSummary(Map<String, Integer> warnings) {
    return warnings.entrySet().stream()
        .sorted((x, y) -> Integer.compare(y.getValue(), x.getValue()))
        .limit(4)
        .map(e -> e.getValue() + "× \"" + e.getKey() + "\"")
        .collect(java.util.stream.Collectors.joining(", "));
  }

  private void explainDuplicates() {
    List<ExecutionLog.Execution> runs = new ArrayList<>(figures.executions.get(StrategyKind.REFRESHER));
    runs.sort((x, y) -> Long.compare(x.startMicros(), y.startMicros()));
    Map<Integer, ExecutionLog.Execution> last = new LinkedHashMap<>();
    Map<String, Integer> pairs = new LinkedHashMap<>();
    for (ExecutionLog.Execution e : runs) {
      ExecutionLog.Execution previous = last.put(e.rank(), e);
      if (previous != null && figures.isHot(e.rank()) && figures.counted(e.startMicros())
          && e.startMicros() - previous.startMicros() < figures.data().ttlMicros() / 2) {
        pairs.merge(previous.caller() + " then " + e.caller(), 1, Integer::sum);
      }
    }
    evidence.put("hotDuplicatePairs", pairs);
    reasons.add("duplicate executions of hot keys, by who ran the two: " + pairs
        + " (a client load followed by the service's refresh means the key's value was missing when read: see the misses; two service runs mean a refresh ran twice in one cycle).");
  }

  private void explainP99(String where, boolean inWindow, ReadLog log, ReadLog floor, ExpiryWindows window, Latency floorLatency, Latency latency) {
    double threshold = floorLatency.p99();
    int slow = 0;
    int waited = 0;
    int lateStart = 0;
    int inGc = 0;
    int busyCpu = 0;
    for (int i = 0; i < log.size(); i++) {
      if (!selected(log, i, window, inWindow) || log.latencyNanos[i] / 1e6 <= threshold) {
        continue;
      }
      slow++;
      if (log.waitedForSource(i)) {
        waited++;
      }
      if (log.startLagMicros(i) > 1_000) {
        lateStart++;
      }
      if (gcOverlap(log.intendedWallMicros[i], log.intendedWallMicros[i] + log.latencyNanos[i] / 1_000) > 0) {
        inGc++;
      }
      if (cpuAt(log.intendedWallMicros[i]) >= 0.9) {
        busyCpu++;
      }
    }
    double medianGap = latency.p50() - floorLatency.p50();
    double lateShare = lateShare(log, window, inWindow);
    double floorLateShare = lateShare(floor, window, inWindow);
    Map<String, Object> e = new LinkedHashMap<>();
    e.put("floorP99Millis", threshold);
    e.put("readsAboveFloorP99", slow);
    e.put("ofWhichWaitedForSource", waited);
    e.put("ofWhichStartedOver1msLate", lateStart);
    e.put("ofWhichDuringGcPause", inGc);
    e.put("ofWhichCpuAtLeast90pc", busyCpu);
    e.put("medianGapMillis", medianGap);
    e.put("shareStartedOver1msLate", lateShare);
    e.put("floorShareStartedOver1msLate", floorLateShare);
    double[] noise = inWindow ? null : steadyNoise();
    if (noise != null) {
      e.put("plainGetStrategiesSteadyP99RatioRange", List.of(noise[0], noise[1]));
    }
    evidence.put("p99 " + where, e);
    StringBuilder text = new StringBuilder(String.format(Locale.ROOT,
        "p99 %s: %s against (a)'s %s (%s). Of (f)'s %d hot-key reads slower than (a)'s p99, %d waited for the source, %d started more than 1 ms after their intended time (all reader threads busy, or a late wake-up), %d overlapped a GC pause of this JVM and %d fell in a 100 ms slice with the machine's CPU at 90 %% or more; (f)'s median is %s %s (a)'s",
        where, Fmt.millis(latency.p99()), Fmt.millis(threshold), ratio(latency.p99() / threshold),
        slow, waited, lateStart, inGc, busyCpu, Fmt.millis(Math.abs(medianGap)), medianGap >= 0 ? "above" : "below"));
    if (medianGap > 0.02) {
      text.append(" (each (f) read is one `EVALSHA` reading the value and its metadata and counting the read, (a)'s a plain `GET`: that fixed cost shifts the whole distribution)");
    }
    text.append(String.format(Locale.ROOT, "; %.1f %% of (f)'s hot reads here started over 1 ms late, %.1f %% of (a)'s", lateShare * 100, floorLateShare * 100));
    if (noise != null) {
      text.append(String.format(Locale.ROOT,
          ". In steady state (b), (c) and (d) read exactly as (a) does (one `GET` of a value that is there), and their p99s came out at %s to %s of (a)'s in this run: that is how far two identical read paths differ here, the noise the 1.05× target has to be read against",
          ratio(noise[0]), ratio(noise[1])));
    }
    text.append(". ");
    if (waited > slow / 2) {
      text.append("What would: keeping those keys (see the misses).");
    } else if (busyCpu + inGc > slow / 2) {
      text.append("What would: the service, Redis and PostgreSQL on their own cores or machines, as in production: here they share 2 cores with the 7 applications' readers.");
    } else if (medianGap > 0.02) {
      text.append("What would: reading the hot keys with a plain `GET` (`client.get(key)`, also counted) where a miss can be taken, or accepting the script's fixed cost.");
    } else {
      text.append("What would: a longer run (the p99 of the expiry windows rests on few reads) or a quieter machine.");
    }
    reasons.add(text.toString());
  }

  private void explainMax(String where, boolean inWindow, ReadLog log, ReadLog floor, ExpiryWindows window) {
    int worst = -1;
    for (int i = 0; i < log.size(); i++) {
      if (selected(log, i, window, inWindow) && (worst < 0 || log.latencyNanos[i] > log.latencyNanos[worst])) {
        worst = i;
      }
    }
    if (worst < 0) {
      return;
    }
    long start = log.intendedWallMicros[worst];
    long end = start + log.latencyNanos[worst] / 1_000;
    long gc = gcOverlap(start, end);
    double cpu = cpuAt(start);
    double floorNear = 0;
    for (int i = 0; i < floor.size(); i++) {
      if (floor.done[i] && Math.abs(floor.intendedWallMicros[i] - start) <= 250_000) {
        floorNear = Math.max(floorNear, floor.latencyNanos[i] / 1e6);
      }
    }
    double latency = log.latencyNanos[worst] / 1e6;
    double lag = log.startLagMicros(worst) / 1e3;
    Map<String, Object> e = new LinkedHashMap<>();
    e.put("worstMillis", latency);
    e.put("atSecondsFromWarm", (start - figures.data().warmMicros()) / 1e6);
    e.put("startLagMillis", lag);
    e.put("waitedForSource", log.waitedForSource(worst));
    e.put("gcPauseOverlapMillis", gc / 1e3);
    e.put("cpuBusy", cpu);
    e.put("floorWorstWithin250msMillis", floorNear);
    evidence.put("max " + where, e);
    String cause;
    if (log.waitedForSource(worst)) {
      cause = "it waited for the source (a miss)";
    } else if (gc > 0.3 * latency * 1e3) {
      cause = String.format(Locale.ROOT, "a GC pause of this JVM (the service, the client and all readers share it) covered %s of it", Fmt.millis(gc / 1e3));
    } else if (lag > 0.5 * latency) {
      cause = String.format(Locale.ROOT, "it started %s late: its thread woke late or every reader thread was busy", Fmt.millis(lag));
    } else if (cpu >= 0.9) {
      cause = String.format(Locale.ROOT, "the machine's CPU was %.0f %% busy in that slice", cpu * 100);
    } else {
      cause = "nothing this run measures singles it out (no GC pause, CPU below 90 %, no late start): scheduling noise of a shared 2-core machine";
    }
    reasons.add(String.format(Locale.ROOT,
        "max %s: (f)'s slowest hot-key read took %s at %+.2f s from the warm-up; %s. (a)'s slowest read within 250 ms of it took %s. A single read decides a max: on this machine (service, Redis, PostgreSQL and the readers on 2 shared cores) it varies from run to run; what would: the servers on their own cores, as in production.",
        where, Fmt.millis(latency), (start - figures.data().warmMicros()) / 1e6, cause, Fmt.millis(floorNear)));
  }

  /** The share of the selected hot reads that started over 1 ms after their intended time. */
  private double lateShare(ReadLog log, ExpiryWindows window, boolean inWindow) {
    long selected = 0;
    long late = 0;
    for (int i = 0; i < log.size(); i++) {
      if (selected(log, i, window, inWindow)) {
        selected++;
        if (log.startLagMicros(i) > 1_000) {
          late++;
        }
      }
    }
    return selected == 0 ? 0 : late / (double) selected;
  }

  /** The lowest and highest steady-state hot p99 ratio of the strategies that read with a plain GET. */
  private double[] steadyNoise() {
    double low = Double.NaN;
    double high = Double.NaN;
    for (StrategyKind kind : List.of(StrategyKind.CACHE_ASIDE, StrategyKind.LOCK, StrategyKind.XFETCH_1, StrategyKind.XFETCH_15)) {
      double r = figures.strategies.get(kind).steadyRatios().p99();
      if (!Double.isNaN(r)) {
        low = Double.isNaN(low) ? r : Math.min(low, r);
        high = Double.isNaN(high) ? r : Math.max(high, r);
      }
    }
    return Double.isNaN(low) ? null : new double[] {low, high};
  }

  private boolean selected(ReadLog log, int i, ExpiryWindows window, boolean inWindow) {
    return log.done[i]
        && figures.counted(log.intendedWallMicros[i])
        && figures.isHot(log.ranks[i])
        && window.contains(log.intendedWallMicros[i]) == inWindow;
  }

  /** Microseconds of GC pauses within [from, to]. */
  long gcOverlap(long from, long to) {
    long total = 0;
    for (MachineMonitor.GcPause pause : figures.data().pauses()) {
      long start = Math.max(from, pause.startMicros());
      long end = Math.min(to, pause.startMicros() + pause.durationMicros());
      if (end > start) {
        total += end - start;
      }
    }
    return total;
  }

  /** The machine's CPU use in the 100 ms slice holding {@code at}, or 0 if unknown. */
  double cpuAt(long at) {
    for (MachineMonitor.CpuSample sample : figures.data().cpu()) {
      if (sample.atMicros() >= at && sample.atMicros() - 100_000 <= at) {
        return sample.busy();
      }
    }
    return 0;
  }
}
