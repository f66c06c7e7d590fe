package io.refresher.bench.stampede;

import io.refresher.bench.BenchContext;
import io.refresher.bench.Phase;
import io.refresher.bench.report.BenchReport;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The stampede benchmark (issue 9, point 3): six strategies against the synchronised and the
 * jittered expiry of Zipf-distributed keys whose source is expensive, open loop, on the run's
 * Redis and PostgreSQL; Refresher (the real service with {@code refresher-client}) held against
 * the latency floor of keys that never expire.
 */
public final class StampedePhase implements Phase {

  @Override
  public String id() {
    return "stampede";
  }

  @Override
  public void run(BenchContext context, BenchReport report) throws Exception {
    StampedeSettings settings = StampedeSettings.of(context);
    Map<String, SourceCost> costs = costs(context, settings);
    List<RunFigures> runs = new ArrayList<>();
    try (RedisAdmin admin = new RedisAdmin(context.redis().url(), StampedeRun.REDIS_DATABASE)) {
      int index = 0;
      for (StampedeSettings.Combination combination : settings.runs()) {
        long started = System.nanoTime();
        SourceCost cost = costs.get(combination.costId());
        RunData data = StampedeRun.run(context, admin, settings.forRun(combination), combination, cost, "s" + (++index));
        RunFigures figures = RunFigures.of(data);
        runs.add(figures);
        printSummary(figures, (System.nanoTime() - started) / 1e9);
      }
      admin.flushDatabase();
    }
    new StampedeReport(settings, costs, runs)
        .write(report, report.section(id(), "Stampede: six strategies against synchronised and jittered expiry"));
  }

  private static Map<String, SourceCost> costs(BenchContext context, StampedeSettings settings) throws Exception {
    Map<String, SourceCost> costs = new LinkedHashMap<>();
    for (StampedeSettings.Combination combination : settings.runs()) {
      String id = combination.costId();
      if (costs.containsKey(id)) {
        continue;
      }
      if (id.equals("cpu")) {
        String url = context.newDatabase("stampede_calibration");
        SourceFunction.install(url);
        costs.put(id, SourceFunction.calibrateCpu(url, 25));
      } else {
        costs.put(id, SourceCost.sleep(Integer.parseInt(id.substring("sleep".length()))));
      }
    }
    return costs;
  }

  private static void printSummary(RunFigures figures, double seconds) {
    RunData data = figures.data();
    System.out.printf(Locale.ROOT, "stampede %s / %s: %.1f s%n", data.combination().scenario().id(), data.cost().id(), seconds);
    for (StrategyKind kind : StrategyKind.all()) {
      StrategyFigures s = figures.strategies.get(kind);
      System.out.printf(
          Locale.ROOT,
          "  %-28s reads %6d  hot misses/M %8.0f  misses/M %8.0f  runs/key/TTL hot %.2f all %.2f  dup hot %d  p99 expiry %8.2f ms (a %6.2f)  steady %7.2f ms (a %6.2f)  max %8.2f / %8.2f  cmds/read %.2f+%.2f  failed %d%n",
          kind.label(), s.reads(), s.hotMissesPerMillion(), s.missesPerMillion(), s.hotExecutionsPerKeyPerTtl(),
          s.executionsPerKeyPerTtl(), s.hotDuplicates(), s.expiryHot().p99(), s.floorExpiryHot().p99(),
          s.steadyHot().p99(), s.floorSteadyHot().p99(), s.expiryHot().max(), s.steadyHot().max(),
          s.commandsPerRead(), s.serviceCommandsPerRead(), s.failures());
      RunData.StrategyData raw = data.strategies().get(kind);
      if (raw.firstFailure() != null) {
        System.out.println("    first failure: " + raw.firstFailure());
      }
    }
  }
}
