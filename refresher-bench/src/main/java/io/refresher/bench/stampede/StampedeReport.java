package io.refresher.bench.stampede;

import io.refresher.bench.report.BenchReport;
import io.refresher.bench.report.Fmt;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** The phase's part of the report: what was run, one pair of tables and charts per run, the verdict. */
final class StampedeReport {

  private final StampedeSettings settings;
  private final List<RunFigures> runs;
  private final Map<String, SourceCost> costs;
  private BenchReport report;

  StampedeReport(StampedeSettings settings, Map<String, SourceCost> costs, List<RunFigures> runs) {
    this.settings = settings;
    this.costs = costs;
    this.runs = runs;
  }

  void write(BenchReport report, BenchReport.Section section) {
    this.report = report;
    ZipfKeys zipf = new ZipfKeys(settings.keys(), settings.zipfExponent(), settings.hotKeys());
    section.paragraph(setup(zipf));
    section.paragraph(definitions());
    section.paragraph(strategies());
    List<Map<String, Object>> json = new ArrayList<>();
    List<List<String>> verdictRows = new ArrayList<>();
    for (RunFigures run : runs) {
      RunData data = run.data();
      StampedeSettings sized = data.settings();
      ZipfKeys runZipf = new ZipfKeys(sized.keys(), sized.zipfExponent(), sized.hotKeys());
      String title = data.combination().scenario().label() + ", " + data.cost().label();
      String stem = "stampede-" + data.combination().scenario().id() + "-" + data.cost().id();
      section.paragraph("### " + capitalised(title));
      section.paragraph(String.format(
          Locale.ROOT,
          "%,d keys per strategy, %,.0f reads/s per strategy; hot keys: the top %d ranks (%.0f %% of the reads); "
              + "the service's hot threshold %.2f reads/s (the rate of rank %d). Reads measured per strategy: %,d.",
          sized.keys(), sized.readsPerSecond(), sized.hotKeys(), runZipf.hotShare() * 100, sized.hotThreshold(),
          2 * sized.hotKeys(), run.strategies.get(StrategyKind.NEVER_EXPIRES).reads()));
      String saturation = saturation(run);
      if (saturation != null) {
        section.paragraph(saturation);
      }
      section.table(
          String.format(Locale.ROOT, "Hot keys (the top %d ranks, %.0f %% of reads): %s", sized.hotKeys(), runZipf.hotShare() * 100, title),
          hotHeader(),
          hotRows(run));
      section.table("All keys: " + title, allHeader(), allRows(run));
      RefresherVerdict verdict = RefresherVerdict.of(run);
      StringBuilder text = new StringBuilder("**Refresher against its targets** (hot keys, against (a) at the same moments): ")
          .append(verdict.summary()).append('.');
      for (String reason : verdict.reasons) {
        text.append("\n\n- ").append(reason);
      }
      section.paragraph(text.toString());
      section.paragraph(serviceFacts(run));
      section.chart(stem + "-latency", "Latency around an expiry: " + title,
          StampedeCharts.latencyAroundExpiry(run, "Worst hot-key read around the warm-up values' expiry: " + title));
      section.chart(stem + "-queries", "Source queries per second, hot keys: " + title,
          StampedeCharts.queriesPerSecond(run, "Hot-key source executions per second per strategy: " + title));
      verdictRows.add(verdictRow(title, verdict));
      json.add(runJson(run, verdict));
    }
    section.table(
        "Refresher against the targets, every run (hot keys; ratios to (a) at the same moments)",
        List.of("run", "hot misses /M", "hot duplicates", "p99 expiry", "p99 steady", "max expiry", "max steady", "all met"),
        verdictRows);
    section.paragraph(whereRefresherLoses());
    section.paragraph(machine());
    section.put("settings", settingsJson(zipf));
    section.put("runs", json);
  }

  private String setup(ZipfKeys zipf) {
    return String.format(
        Locale.ROOT,
        """
        Seven strategies read expensive values at once, each on its own keys and as its own application, \
        on this run's Redis and PostgreSQL. **Keys:** %,d per strategy, Zipf-distributed (exponent %.1f: rank r \
        is read in proportion to 1/r); the **hot keys** are the top %d ranks (%.1f %% of the keys, %.0f %% of \
        the reads). Fewer where the source's cost requires it (each run says): a cache-aside tail misses on \
        almost every read of a key read less than once per TTL, so the tail sets the database's load; a 200 ms \
        query holds a connection (at most 2,000 keys at 500 reads/s then), a CPU-bound one runs on the same two \
        cores as everything else (50 keys). **Load:** open loop, Poisson arrivals at %,.0f reads/s per strategy, precomputed; %d reader \
        threads per strategy take them at their intended times, and a read's latency runs from its intended \
        start to its return (HdrHistogram), so a stalled reader or a full pool shows instead of hiding \
        (coordinated omission). **Applications:** each strategy has one Redisson client shared by its readers, a \
        read-only pool of %d PostgreSQL connections, and %d application instances where a strategy keeps \
        something per process (Caffeine caches, Refresher clients), reads spread over them round robin. \
        **Source:** `bench_compute(run, strategy, key, cost)`, a PL/pgSQL function (%s), which reports each \
        execution it completes with `pg_notify`; a LISTEN connection records them, so the database counts \
        executions per strategy, key and time (checked at every run: a notification from a read-only \
        session, as the service's sources run, arrives). **Timing:** TTL %d s; (a) and (f) are warmed \
        first and (f)'s readers read for %d s so that its counts make the hot head hot; then the others \
        write every key's value at one moment and start reading. The hot keys' values all expire a TTL later \
        (synchronised: every write gets exactly the TTL) or within ± 10 %% of it (jittered: every write draws \
        TTL ± 10 %%); the tail's first expiries are spread evenly over one TTL, as a running cache-aside tail \
        has them. The service recomputes the keys of its hot set at that moment too (synchronised) or spread \
        over ± 10 %% of the TTL around it (jittered), so its hot keys would expire with the others'. Every \
        figure covers %d s of reads from %.0f s after that moment (≈ %.1f TTLs). **Why all at \
        once:** the ratio to (a) is taken against (a)'s reads at the same moments (in the strategy's own \
        expiry windows, or outside them), so a GC pause or a busy CPU weighs on both; the price is that the \
        strategies share the machine (2 cores here, with Redis, PostgreSQL and the service), so one's \
        stampede slows the others: compare each strategy to (a) rather than to another.""",
        settings.keys(),
        settings.zipfExponent(),
        settings.hotKeys(),
        100.0 * settings.hotKeys() / settings.keys(),
        zipf.hotShare() * 100,
        settings.readsPerSecond(),
        settings.readerThreads(),
        settings.poolSize(),
        settings.instances(),
        String.join("; ", costs.values().stream().map(SourceCost::label).toList()),
        settings.ttl().toSeconds(),
        settings.learning().toSeconds(),
        settings.measured().minus(settings.settle()).toSeconds(),
        settings.settle().toMillis() / 1e3,
        settings.measured().minus(settings.settle()).toMillis() / (double) settings.ttl().toMillis());
  }

  private String definitions() {
    return String.format(
        Locale.ROOT,
        """
        **Definitions.** A **miss** is a read that waited for the source: the value it returned was computed \
        (by PostgreSQL's clock) after the read had started, whether the key was absent or the strategy \
        recomputed in the read path (XFetch's early recomputation, Refresher's client recomputing a key it \
        wrote). A **stale** read returned a value older than the longest TTL (+ 50 ms). **Source runs per key \
        per TTL**: executions started in the measured span / (keys × span / TTL); 1.0 is one per cycle. A \
        **duplicate** is an execution that started less than half a TTL after the previous one of the same \
        key (two runs in one cycle). The **expiry windows** of a strategy lie around every moment a hot key's \
        current value would expire (its write + its TTL; for (f), each of the service's computations + TTL), \
        from %.1f s before (early recomputations and Refresher's refreshes happen there) to %.1f s after (the \
        stampede); a value replaced more than half a TTL before its expiry (a warm-up value replaced by the \
        service) leaves none. **Steady state** is the rest. Each latency \
        is followed by its ratio to (a)'s hot-key reads at the same moments. **Redis commands per read**: the \
        commands each application's Redisson client wrote to its connections (a script is one `EVALSHA`, a \
        pipeline counts each of its commands) over the span, per read; for (f) + the service's own, counted \
        the same way on the service's connections (INFO commandstats cannot tell strategies apart when they run \
        at once; its totals, script-internal calls included, are in summary.json).""",
        settings.windowBefore().toMillis() / 1e3,
        settings.windowAfter().toMillis() / 1e3);
  }

  private String strategies() {
    StringBuilder text = new StringBuilder("**The strategies, exactly:**\n");
    RunFigures first = runs.get(0);
    for (StrategyKind kind : StrategyKind.all()) {
      text.append("\n- **").append(kind.label()).append("**: ").append(first.strategies.get(kind).description());
    }
    text.append(String.format(
        Locale.ROOT,
        "%n%nRefresher's service runs with `config.yml`'s defaults (16 workers, adaptive TTR from 1 s, `maxTtrFraction` 0.5, `retryBase` 500 ms, `staleGrace` 5 min, Redis pool 64) except its hot-key learning, made fast for runs under a minute: `access.halfLife` %s, `access.hotThreshold` set per run to the rate of the rank twice as deep as the hot head (so the head is read at twice the threshold or more; each run gives it), `sampleInterval` 500 ms, `settle` 1 s, `coldAfter` 60 s (`stampede.yml`). The readers' counts alone make keys hot: nothing is registered by hand, which is how a template and a Zipf workload are meant to be used; an operator who knows the head could register it with policy `always` instead.",
        settings.halfLife().toMillis() >= 1_000 ? settings.halfLife().toSeconds() + " s" : settings.halfLife().toMillis() + " ms"));
    return text.toString();
  }

  private static List<String> hotHeader() {
    return List.of(
        "strategy", "source runs /key/TTL hot · all", "duplicates hot · all", "misses /M hot · all", "stale /M",
        "expiry p50", "expiry p99", "expiry p99.9", "expiry max",
        "steady p50", "steady p99", "steady p99.9", "steady max", "Redis cmds /read");
  }

  private List<List<String>> hotRows(RunFigures run) {
    List<List<String>> rows = new ArrayList<>();
    for (StrategyKind kind : StrategyKind.all()) {
      StrategyFigures s = run.strategies.get(kind);
      boolean floor = kind == StrategyKind.NEVER_EXPIRES;
      Latency.Ratios e = s.expiryRatios();
      Latency.Ratios st = s.steadyRatios();
      List<String> row = new ArrayList<>();
      row.add(kind.label());
      row.add(Fmt.number(round2(s.hotExecutionsPerKeyPerTtl())) + " · " + Fmt.number(round2(s.executionsPerKeyPerTtl())));
      row.add(s.hotDuplicates() + " · " + s.duplicates());
      row.add(Fmt.number(Math.round(s.hotMissesPerMillion())) + " · " + Fmt.number(Math.round(s.missesPerMillion())));
      row.add(s.stalePerMillion() == null ? "n/a" : Fmt.number(Math.round(s.stalePerMillion())));
      row.add(cell(s.expiryHot().p50(), floor ? Double.NaN : e.p50()));
      row.add(cell(s.expiryHot().p99(), floor ? Double.NaN : e.p99()));
      row.add(cell(s.expiryHot().p999(), floor ? Double.NaN : e.p999()));
      row.add(cell(s.expiryHot().max(), floor ? Double.NaN : e.max()));
      row.add(cell(s.steadyHot().p50(), floor ? Double.NaN : st.p50()));
      row.add(cell(s.steadyHot().p99(), floor ? Double.NaN : st.p99()));
      row.add(cell(s.steadyHot().p999(), floor ? Double.NaN : st.p999()));
      row.add(cell(s.steadyHot().max(), floor ? Double.NaN : st.max()));
      row.add(commands(s));
      rows.add(row);
    }
    return rows;
  }

  private static List<String> allHeader() {
    return List.of("strategy", "reads", "misses /M", "p50", "p99", "p99.9", "max", "in expiry windows", "failed reads",
        "source queries /s mean · busiest second", "by whom the source ran");
  }

  private List<List<String>> allRows(RunFigures run) {
    List<List<String>> rows = new ArrayList<>();
    for (StrategyKind kind : StrategyKind.all()) {
      StrategyFigures s = run.strategies.get(kind);
      boolean floor = kind == StrategyKind.NEVER_EXPIRES;
      Latency.Ratios r = s.allRatios();
      rows.add(List.of(
          kind.label(),
          Fmt.number(s.reads()),
          Fmt.number(Math.round(s.missesPerMillion())),
          cell(s.allReads().p50(), floor ? Double.NaN : r.p50()),
          cell(s.allReads().p99(), floor ? Double.NaN : r.p99()),
          cell(s.allReads().p999(), floor ? Double.NaN : r.p999()),
          cell(s.allReads().max(), floor ? Double.NaN : r.max()),
          String.format(Locale.ROOT, "%.0f %% of the time, %d windows", s.windowShare() * 100, s.windows()),
          Fmt.number(s.failures()),
          queryRates(run, kind),
          s.executionsByCaller().isEmpty() ? "—" : s.executionsByCaller().toString().replace("{", "").replace("}", "").replace("=", " ")));
    }
    return rows;
  }

  /** Source executions per second over the span, mean and the busiest whole second. */
  private static String queryRates(RunFigures run, StrategyKind kind) {
    long from = run.data().countFromMicros();
    int seconds = (int) Math.max(1, run.spanMicros() / 1_000_000);
    int[] counts = new int[seconds];
    long total = 0;
    for (ExecutionLog.Execution e : run.executions.get(kind)) {
      long at = e.startMicros() - from;
      if (at >= 0 && at < run.spanMicros()) {
        total++;
        int second = (int) (at / 1_000_000);
        if (second < seconds) {
          counts[second]++;
        }
      }
    }
    int busiest = java.util.Arrays.stream(counts).max().orElse(0);
    return Fmt.rate(total / (run.spanMicros() / 1e6)) + " · " + busiest;
  }

  private static String commands(StrategyFigures s) {
    if (s.kind() == StrategyKind.REFRESHER) {
      return String.format(Locale.ROOT, "%.2f + %.2f service", s.commandsPerRead(), s.serviceCommandsPerRead());
    }
    return String.format(Locale.ROOT, "%.2f", s.commandsPerRead());
  }

  private static String cell(double millis, double ratio) {
    if (Double.isNaN(millis)) {
      return "—";
    }
    return Double.isNaN(ratio) ? Fmt.millis(millis) : Fmt.millis(millis) + " (" + Fmt.ratio(ratio) + ")";
  }

  private static double round2(double value) {
    return Math.round(value * 100) / 100.0;
  }

  private String serviceFacts(RunFigures run) {
    RunData data = run.data();
    int head = 0;
    for (String key : data.serviceHotSet()) {
      if (run.isHot(StrategyContext.rankOf(key))) {
        head++;
      }
    }
    long serviceRuns = 0;
    long unread = 0;
    Map<Integer, long[]> reads = run.readTimesByRank(StrategyKind.REFRESHER);
    List<ExecutionLog.Execution> executions = new ArrayList<>(run.executions.get(StrategyKind.REFRESHER));
    executions.sort((x, y) -> Long.compare(x.startMicros(), y.startMicros()));
    Map<Integer, List<ExecutionLog.Execution>> byRank = new LinkedHashMap<>();
    for (ExecutionLog.Execution e : executions) {
      byRank.computeIfAbsent(e.rank(), r -> new ArrayList<>()).add(e);
    }
    for (List<ExecutionLog.Execution> ofKey : byRank.values()) {
      for (int i = 0; i < ofKey.size(); i++) {
        ExecutionLog.Execution e = ofKey.get(i);
        if (!e.caller().equals("service") || !run.counted(e.startMicros())) {
          continue;
        }
        serviceRuns++;
        long until = i + 1 < ofKey.size() ? ofKey.get(i + 1).startMicros() : e.endMicros() + data.ttlMicros();
        until = Math.min(until, data.endMicros());
        long[] times = reads.getOrDefault(e.rank(), new long[0]);
        int at = java.util.Arrays.binarySearch(times, e.endMicros());
        int index = at >= 0 ? at : -at - 1;
        if (until > e.endMicros() && (index >= times.length || times[index] >= until)) {
          unread++;
        }
      }
    }
    long aligned = data.alignOutcomes().values().stream().filter("refreshed"::equals).count();
    double perSecond = serviceRuns / (run.spanMicros() / 1e6);
    String warnings = RefresherVerdict.warningSummary(data.serviceWarnings());
    return (warnings.isEmpty() ? "" : "The service logged (WARN and above, during the run): " + warnings + ". ")
        + String.format(
        Locale.ROOT,
        "The service's hot set when the others were warmed: %d of (f)'s keys, %d of the %d hot ranks among them; "
            + "%d of them recomputed at that moment (%s). Over the span it ran the source %d times (%s refreshes/s, %s of "
            + "this run's ceiling: the stampede workload is about latency and duplicate work, not throughput), %d of them "
            + "for a value nobody read before its next computation or its expiry; service metrics over the whole run: %s.",
        data.serviceHotSet().size(), head, data.settings().hotKeys(), aligned, outcomes(data.alignOutcomes()),
        serviceRuns, Fmt.rate(perSecond), report.ofCeiling(perSecond), unread, data.serviceMetrics());
  }

  private static String outcomes(Map<String, String> outcomes) {
    Map<String, Integer> counts = new LinkedHashMap<>();
    outcomes.values().forEach(outcome -> counts.merge(outcome, 1, Integer::sum));
    return counts.isEmpty() ? "none" : counts.toString();
  }

  private static List<String> verdictRow(String title, RefresherVerdict v) {
    StrategyFigures f = null;
    return List.of(
        title,
        Fmt.met(v.noHotMisses),
        Fmt.met(v.noHotDuplicates),
        RefresherVerdict.ratio(v.p99Expiry) + " " + Fmt.met(Double.isNaN(v.p99Expiry) || v.p99Expiry <= RefresherVerdict.P99_TARGET),
        RefresherVerdict.ratio(v.p99Steady) + " " + Fmt.met(Double.isNaN(v.p99Steady) || v.p99Steady <= RefresherVerdict.P99_TARGET),
        RefresherVerdict.ratio(v.maxExpiry) + " " + Fmt.met(Double.isNaN(v.maxExpiry) || v.maxExpiry <= RefresherVerdict.MAX_TARGET),
        RefresherVerdict.ratio(v.maxSteady) + " " + Fmt.met(Double.isNaN(v.maxSteady) || v.maxSteady <= RefresherVerdict.MAX_TARGET),
        Fmt.met(v.allMet()));
  }

  private String whereRefresherLoses() {
    StringBuilder text = new StringBuilder("**Where Refresher does not win** (measured in these runs):\n");
    for (RunFigures run : runs) {
      StrategyFigures f = run.strategies.get(StrategyKind.REFRESHER);
      StrategyFigures c = run.strategies.get(StrategyKind.LOCK);
      StrategyFigures a = run.strategies.get(StrategyKind.NEVER_EXPIRES);
      text.append(String.format(
          Locale.ROOT,
          "%n- %s: source runs per key per TTL %s on the hot keys and %s on all keys for (f), %s and %s for the lock (c); "
              + "misses per million over all keys %s for (f), %s for (c) (the tail, which the service does not keep, is "
              + "cache-aside with a single flight in both); median read %s for (f) against %s for (a) and %s for (c); "
              + "Redis commands per read %.2f (+ %.2f by the service) against %.2f for (c).",
          capitalised(run.data().combination().scenario().label() + ", " + run.data().cost().label()),
          Fmt.number(round2(f.hotExecutionsPerKeyPerTtl())), Fmt.number(round2(f.executionsPerKeyPerTtl())),
          Fmt.number(round2(c.hotExecutionsPerKeyPerTtl())), Fmt.number(round2(c.executionsPerKeyPerTtl())),
          Fmt.number(Math.round(f.missesPerMillion())), Fmt.number(Math.round(c.missesPerMillion())),
          Fmt.millis(f.allReads().p50()), Fmt.millis(a.allReads().p50()), Fmt.millis(c.allReads().p50()),
          f.commandsPerRead(), f.serviceCommandsPerRead(), c.commandsPerRead()));
    }
    text.append(
        "\n\nRefresher refreshes every key of its hot set once per cycle whether or not anyone reads the new value "
            + "(the service facts above count those), and keys that stray above the threshold for a moment stay hot for "
            + "`coldAfter`; a lock runs the source only when someone misses, so for keys read less than once per TTL it "
            + "runs fewer. The first reads of a key that is not hot yet are ordinary misses. Every read pays the client's "
            + "script (value + metadata + counting) instead of a plain `GET`. And it needs a service: a process, its "
            + "PostgreSQL schema, an operator.");
    return text.toString();
  }

  /**
   * A warning when the machine was saturated during the run (the CPU at 90 % or more in over a
   * third of its 100 ms slices, or (a)'s plain GETs above 50 ms at p99): its figures then measure
   * the contention more than the strategies.
   */
  private static String saturation(RunFigures run) {
    int slices = 0;
    int saturated = 0;
    for (MachineMonitor.CpuSample sample : run.data().cpu()) {
      if (run.counted(sample.atMicros())) {
        slices++;
        if (sample.busy() >= 0.9) {
          saturated++;
        }
      }
    }
    double floorP99 = run.strategies.get(StrategyKind.NEVER_EXPIRES).allReads().p99();
    if ((slices == 0 || saturated * 3 < slices) && !(floorP99 > 50)) {
      return null;
    }
    return String.format(
        Locale.ROOT,
        "**The machine was saturated during this run:** its CPU was 90 %% busy or more in %d of %d 100 ms slices, and "
            + "(a)'s plain `GET`s of values that are always there took %s at p99. Whatever else runs on the machine counts "
            + "(its other users included): the figures below measure that contention as much as the strategies; compare "
            + "each strategy with (a) at the same moments, and prefer a run on a quiet machine.",
        saturated, slices, Fmt.millis(floorP99));
  }

  private String machine() {
    StringBuilder text = new StringBuilder("**The machine during each run** (whole machine CPU from /proc/stat, this JVM's GC pauses):\n");
    for (RunFigures run : runs) {
      RunData data = run.data();
      double sum = 0;
      double max = 0;
      int n = 0;
      int saturated = 0;
      for (MachineMonitor.CpuSample sample : data.cpu()) {
        if (run.counted(sample.atMicros())) {
          sum += sample.busy();
          max = Math.max(max, sample.busy());
          n++;
          if (sample.busy() >= 0.9) {
            saturated++;
          }
        }
      }
      long pauses = 0;
      long longest = 0;
      long total = 0;
      for (MachineMonitor.GcPause pause : data.pauses()) {
        if (run.counted(pause.startMicros())) {
          pauses++;
          longest = Math.max(longest, pause.durationMicros());
          total += pause.durationMicros();
        }
      }
      text.append(String.format(
          Locale.ROOT,
          "%n- %s: CPU %.0f %% busy on average, %.0f %% at most, ≥ 90 %% in %d of %d 100 ms slices; %d GC pauses, %s in all, the longest %s.",
          capitalised(data.combination().scenario().label() + ", " + data.cost().label()),
          n == 0 ? 0 : 100 * sum / n, 100 * max, saturated, n, pauses, Fmt.millis(total / 1e3), Fmt.millis(longest / 1e3)));
    }
    return text.toString();
  }

  private Map<String, Object> settingsJson(ZipfKeys zipf) {
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("mode", settings.mode());
    json.put("keysPerStrategy", settings.keys());
    json.put("hotKeys", settings.hotKeys());
    json.put("hotShareOfReads", zipf.hotShare());
    json.put("zipfExponent", settings.zipfExponent());
    json.put("readsPerSecondPerStrategy", settings.readsPerSecond());
    json.put("ttlSeconds", settings.ttl().toSeconds());
    json.put("learningSeconds", settings.learning().toSeconds());
    json.put("measuredSeconds", settings.measured().minus(settings.settle()).toMillis() / 1e3);
    json.put("readerThreads", settings.readerThreads());
    json.put("poolSize", settings.poolSize());
    json.put("instances", settings.instances());
    json.put("windowBeforeMillis", settings.windowBefore().toMillis());
    json.put("windowAfterMillis", settings.windowAfter().toMillis());
    Map<String, Object> costJson = new LinkedHashMap<>();
    costs.forEach((id, cost) -> costJson.put(id, Map.of("label", cost.label(), "argument", cost.argument(), "nominalMillis", cost.nominalMillis())));
    json.put("costs", costJson);
    return json;
  }

  private Map<String, Object> runJson(RunFigures run, RefresherVerdict verdict) {
    RunData data = run.data();
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("scenario", data.combination().scenario().id());
    json.put("cost", data.cost().id());
    json.put("run", data.run());
    json.put("keysPerStrategy", data.settings().keys());
    json.put("hotKeys", data.settings().hotKeys());
    json.put("readsPerSecondPerStrategy", data.settings().readsPerSecond());
    json.put("hotThreshold", data.settings().hotThreshold());
    Map<String, Object> strategies = new LinkedHashMap<>();
    for (StrategyKind kind : StrategyKind.all()) {
      strategies.put(kind.id(), strategyJson(run.strategies.get(kind)));
    }
    json.put("strategies", strategies);
    Map<String, Object> refresher = new LinkedHashMap<>();
    refresher.put("noHotMisses", verdict.noHotMisses);
    refresher.put("noHotDuplicates", verdict.noHotDuplicates);
    refresher.put("p99RatioExpiry", finite(verdict.p99Expiry));
    refresher.put("p99RatioSteady", finite(verdict.p99Steady));
    refresher.put("maxRatioExpiry", finite(verdict.maxExpiry));
    refresher.put("maxRatioSteady", finite(verdict.maxSteady));
    refresher.put("allMet", verdict.allMet());
    refresher.put("reasons", verdict.reasons);
    refresher.put("evidence", verdict.evidence);
    refresher.put("serviceHotSetSize", data.serviceHotSet().size());
    refresher.put("serviceMetrics", data.serviceMetrics());
    refresher.put("serviceWarnings", data.serviceWarnings());
    json.put("refresherTargets", refresher);
    json.put("serviceRedisCommands", data.serviceCommands());
    json.put("redisCommandStatsWholeServer", data.serverCommandStats());
    json.put("queriesPerSecond", queriesPerSecond(run));
    return json;
  }

  private Map<String, Object> strategyJson(StrategyFigures s) {
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("reads", s.reads());
    json.put("hotReads", s.hotReads());
    json.put("failedReads", s.failures());
    json.put("missesPerMillion", s.missesPerMillion());
    json.put("hotMissesPerMillion", s.hotMissesPerMillion());
    json.put("stalePerMillion", s.stalePerMillion());
    json.put("executions", s.executions());
    json.put("hotExecutions", s.hotExecutions());
    json.put("executionsPerKeyPerTtl", s.executionsPerKeyPerTtl());
    json.put("hotExecutionsPerKeyPerTtl", s.hotExecutionsPerKeyPerTtl());
    json.put("duplicates", s.duplicates());
    json.put("hotDuplicates", s.hotDuplicates());
    json.put("executionsByCaller", s.executionsByCaller());
    json.put("expiryWindowHot", latencyJson(s.expiryHot(), s.expiryRatios()));
    json.put("steadyHot", latencyJson(s.steadyHot(), s.steadyRatios()));
    json.put("allReads", latencyJson(s.allReads(), s.allRatios()));
    json.put("floorAtSameMomentsExpiryHot", latencyJson(s.floorExpiryHot(), null));
    json.put("floorAtSameMomentsSteadyHot", latencyJson(s.floorSteadyHot(), null));
    json.put("expiryWindowShare", s.windowShare());
    json.put("redisCommandsPerRead", s.commandsPerRead());
    json.put("serviceRedisCommandsPerRead", s.serviceCommandsPerRead());
    json.put("redisCommands", s.commands());
    json.put("counters", s.counters());
    return json;
  }

  private static Map<String, Object> latencyJson(Latency latency, Latency.Ratios ratios) {
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("reads", latency.reads());
    json.put("p50Millis", finite(latency.p50()));
    json.put("p99Millis", finite(latency.p99()));
    json.put("p999Millis", finite(latency.p999()));
    json.put("maxMillis", finite(latency.max()));
    if (ratios != null) {
      json.put("p50Ratio", finite(ratios.p50()));
      json.put("p99Ratio", finite(ratios.p99()));
      json.put("p999Ratio", finite(ratios.p999()));
      json.put("maxRatio", finite(ratios.max()));
    }
    return json;
  }

  /** Executions started per whole second from the others' warm-up, per strategy. */
  private static Map<String, Object> queriesPerSecond(RunFigures run) {
    Map<String, Object> json = new LinkedHashMap<>();
    long from = run.data().learningStartMicros();
    long warm = run.data().warmMicros();
    int seconds = (int) ((run.data().endMicros() - from) / 1_000_000) + 1;
    json.put("firstSecondFromWarm", (int) Math.floor((from - warm) / 1e6));
    for (StrategyKind kind : StrategyKind.all()) {
      int[] counts = new int[seconds];
      for (ExecutionLog.Execution e : run.executions.get(kind)) {
        int at = (int) ((e.startMicros() - from) / 1_000_000);
        if (at >= 0 && at < seconds) {
          counts[at]++;
        }
      }
      json.put(kind.id(), counts);
    }
    return json;
  }

  private static Double finite(double value) {
    return Double.isFinite(value) ? value : null;
  }

  private static String capitalised(String text) {
    return text.isEmpty() ? text : Character.toUpperCase(text.charAt(0)) + text.substring(1);
  }
}
