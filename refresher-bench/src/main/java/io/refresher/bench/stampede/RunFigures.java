package io.refresher.bench.stampede;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.HdrHistogram.Histogram;

/** The figures of one run, computed from what it measured ({@link RunData}). */
final class RunFigures {

  /** Slack on the stale test: a value may be this much older than its TTL (write and clock jitter). */
  static final long STALE_SLACK_MICROS = 50_000;

  final RunData data;
  final Map<StrategyKind, StrategyFigures> strategies = new EnumMap<>(StrategyKind.class);
  final Map<StrategyKind, ExpiryWindows> windows = new EnumMap<>(StrategyKind.class);
  final Map<StrategyKind, List<ExecutionLog.Execution>> executions = new EnumMap<>(StrategyKind.class);

  private RunFigures(RunData data) {
    this.data = data;
  }

  static RunFigures of(RunData data) {
    RunFigures figures = new RunFigures(data);
    figures.compute();
    return figures;
  }

  RunData data() {
    return data;
  }

  boolean isHot(int rank) {
    return rank <= data.settings().hotKeys();
  }

  boolean counted(long micros) {
    return micros >= data.countFromMicros() && micros < data.endMicros();
  }

  long spanMicros() {
    return data.endMicros() - data.countFromMicros();
  }

  private void compute() {
    for (StrategyKind kind : StrategyKind.all()) {
      executions.put(kind, new ArrayList<>());
    }
    for (ExecutionLog.Execution execution : data.executions()) {
      try {
        executions.get(StrategyKind.ofId(execution.strategy())).add(execution);
      } catch (IllegalArgumentException e) {
        // the counting check's
      }
    }
    long before = data.settings().windowBefore().toMillis() * 1_000;
    long after = data.settings().windowAfter().toMillis() * 1_000;
    for (StrategyKind kind : StrategyKind.all()) {
      if (kind != StrategyKind.NEVER_EXPIRES) {
        windows.put(kind, ExpiryWindows.of(hotWrites(kind), before, after, data.ttlMicros() / 2));
      }
    }
    windows.put(StrategyKind.NEVER_EXPIRES, ExpiryWindows.union(new ArrayList<>(windows.values())));
    for (StrategyKind kind : StrategyKind.all()) {
      strategies.put(kind, figuresOf(kind));
    }
  }

  /** The writes of a strategy's hot keys; for (f) the service's executions are its writes. */
  List<WriteLog.Write> hotWrites(StrategyKind kind) {
    List<WriteLog.Write> writes = new ArrayList<>();
    for (WriteLog.Write write : data.strategies().get(kind).writes()) {
      if (isHot(write.rank())) {
        writes.add(write);
      }
    }
    if (kind == StrategyKind.REFRESHER) {
      for (ExecutionLog.Execution execution : executions.get(kind)) {
        if (execution.caller().equals("service") && isHot(execution.rank())) {
          writes.add(new WriteLog.Write(execution.rank(), execution.endMicros(), execution.endMicros() + data.ttlMicros()));
        }
      }
    }
    return writes;
  }

  private StrategyFigures figuresOf(StrategyKind kind) {
    RunData.StrategyData strategy = data.strategies().get(kind);
    ReadLog log = strategy.reads();
    ExpiryWindows window = windows.get(kind);
    long staleLimit = new TtlPolicy(data.settings().ttl(), data.combination().scenario()).maxMillis() * 1_000 + STALE_SLACK_MICROS;
    Histogram expiryHot = Latency.histogram();
    Histogram steadyHot = Latency.histogram();
    Histogram all = Latency.histogram();
    long reads = 0;
    long hotReads = 0;
    long misses = 0;
    long hotMisses = 0;
    long stale = 0;
    long failures = 0;
    for (int i = 0; i < log.size(); i++) {
      if (!log.done[i] || !counted(log.intendedWallMicros[i])) {
        continue;
      }
      reads++;
      boolean hot = isHot(log.ranks[i]);
      if (log.failed[i]) {
        failures++;
      } else {
        if (log.waitedForSource(i)) {
          misses++;
          if (hot) {
            hotMisses++;
          }
        }
        if (log.ageMicros(i) > staleLimit) {
          stale++;
        }
      }
      Latency.record(all, log.latencyNanos[i]);
      if (hot) {
        hotReads++;
        Latency.record(window.contains(log.intendedWallMicros[i]) ? expiryHot : steadyHot, log.latencyNanos[i]);
      }
    }
    // (a) at the same moments: its hot reads inside and outside this strategy's windows.
    ReadLog floor = data.strategies().get(StrategyKind.NEVER_EXPIRES).reads();
    Histogram floorExpiry = Latency.histogram();
    Histogram floorSteady = Latency.histogram();
    Histogram floorAll = Latency.histogram();
    for (int i = 0; i < floor.size(); i++) {
      if (!floor.done[i] || !counted(floor.intendedWallMicros[i])) {
        continue;
      }
      Latency.record(floorAll, floor.latencyNanos[i]);
      if (isHot(floor.ranks[i])) {
        Latency.record(window.contains(floor.intendedWallMicros[i]) ? floorExpiry : floorSteady, floor.latencyNanos[i]);
      }
    }
    // Executions: counted in the span, duplicates against the key's previous execution.
    List<ExecutionLog.Execution> ofKind = new ArrayList<>(executions.get(kind));
    ofKind.sort((x, y) -> Long.compare(x.startMicros(), y.startMicros()));
    Map<Integer, Long> lastStart = new HashMap<>();
    Map<String, Long> byCaller = new TreeMap<>();
    long executed = 0;
    long hotExecuted = 0;
    long duplicates = 0;
    long hotDuplicates = 0;
    long halfTtl = data.ttlMicros() / 2;
    for (ExecutionLog.Execution execution : ofKind) {
      Long previous = lastStart.put(execution.rank(), execution.startMicros());
      if (!counted(execution.startMicros())) {
        continue;
      }
      executed++;
      byCaller.merge(execution.caller(), 1L, Long::sum);
      boolean hot = isHot(execution.rank());
      if (hot) {
        hotExecuted++;
      }
      if (previous != null && execution.startMicros() - previous < halfTtl) {
        duplicates++;
        if (hot) {
          hotDuplicates++;
        }
      }
    }
    double ttls = spanMicros() / (double) data.ttlMicros();
    long commands = CommandCounter.total(strategy.commands());
    long serviceCommands = kind == StrategyKind.REFRESHER ? CommandCounter.total(data.serviceCommands()) : 0;
    return new StrategyFigures(
        kind,
        reads,
        hotReads,
        failures,
        perMillion(misses, reads),
        perMillion(hotMisses, hotReads),
        kind == StrategyKind.NEVER_EXPIRES ? null : perMillion(stale, reads),
        executed,
        hotExecuted,
        executed / (data.settings().keys() * ttls),
        hotExecuted / (data.settings().hotKeys() * ttls),
        duplicates,
        hotDuplicates,
        byCaller,
        Latency.of(expiryHot),
        Latency.of(steadyHot),
        Latency.of(all),
        Latency.of(floorExpiry),
        Latency.of(floorSteady),
        Latency.of(floorAll),
        window.covered(data.countFromMicros(), data.endMicros()) / (double) spanMicros(),
        window.size(),
        commands / (double) Math.max(1, reads),
        serviceCommands / (double) Math.max(1, reads),
        strategy.commands(),
        strategy.counters(),
        strategy.description());
  }

  static double perMillion(long count, long of) {
    return of == 0 ? 0 : count * 1e6 / of;
  }

  /** The start times (wall µs) of a strategy's counted-or-not reads of each rank, sorted. */
  Map<Integer, long[]> readTimesByRank(StrategyKind kind) {
    ReadLog log = data.strategies().get(kind).reads();
    Map<Integer, List<Long>> lists = new HashMap<>();
    for (int i = 0; i < log.size(); i++) {
      if (log.done[i]) {
        lists.computeIfAbsent(log.ranks[i], r -> new ArrayList<>()).add(log.startWallMicros[i]);
      }
    }
    Map<Integer, long[]> times = new HashMap<>();
    lists.forEach(
        (rank, list) -> {
          long[] array = list.stream().mapToLong(Long::longValue).toArray();
          Arrays.sort(array);
          times.put(rank, array);
        });
    return times;
  }
}
