package io.refresher.bench.stampede;

import java.awt.BasicStroke;
import java.awt.Color;
import java.util.ArrayList;
import java.util.List;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.markers.SeriesMarkers;

/** The phase's charts: latency over time around an expiry, and source queries per second. */
final class StampedeCharts {

  private static final Color[] COLORS = {
    new Color(90, 90, 90), // (a)
    new Color(214, 39, 40), // (b)
    new Color(255, 127, 14), // (c)
    new Color(148, 103, 189), // (d1)
    new Color(140, 86, 75), // (d1.5)
    new Color(44, 160, 44), // (e)
    new Color(31, 119, 180), // (f)
  };

  private StampedeCharts() {}

  /**
   * The worst hot-key read in each bucket (by intended start) around the first expiry of the
   * values written at warm-up ({@code warm + TTL}), for every strategy; log scale.
   */
  static XYChart latencyAroundExpiry(RunFigures figures, String title) {
    RunData data = figures.data();
    long ttl = data.ttlMicros();
    long center = data.warmMicros() + ttl;
    long from = center - Math.min(3_000_000, ttl * 3 / 10);
    long to = center + Math.min(5_000_000, ttl / 2);
    long bucket = ttl >= 5_000_000 ? 100_000 : 50_000;
    XYChart chart = chart(title, "seconds from the warm-up values' expiry (warm-up + TTL)", "worst hot-key read per " + bucket / 1000 + " ms (ms, log)");
    chart.getStyler().setYAxisLogarithmic(true);
    for (StrategyKind kind : StrategyKind.all()) {
      ReadLog log = data.strategies().get(kind).reads();
      int buckets = (int) ((to - from) / bucket);
      double[] worst = new double[buckets];
      for (int i = 0; i < log.size(); i++) {
        long at = log.intendedWallMicros[i];
        if (!log.done[i] || at < from || at >= to || !figures.isHot(log.ranks[i])) {
          continue;
        }
        int b = (int) ((at - from) / bucket);
        worst[b] = Math.max(worst[b], log.latencyNanos[i] / 1e6);
      }
      List<Double> xs = new ArrayList<>();
      List<Double> ys = new ArrayList<>();
      for (int b = 0; b < buckets; b++) {
        if (worst[b] > 0) {
          xs.add((from + b * bucket - center) / 1e6);
          ys.add(worst[b]);
        }
      }
      add(chart, kind, xs, ys);
    }
    return chart;
  }

  /**
   * Source executions of the hot keys started per second (in 250 ms buckets), per strategy, over
   * the whole run: the stampede. (All keys' rates, which the tail's misses dominate, are in the
   * all-keys table and summary.json.)
   */
  static XYChart queriesPerSecond(RunFigures figures, String title) {
    RunData data = figures.data();
    long bucket = 250_000;
    // Buckets on whole quarter seconds from the others' warm-up.
    long from = data.warmMicros() - Math.floorDiv(data.warmMicros() - data.learningStartMicros(), bucket) * bucket - bucket;
    long to = data.endMicros();
    XYChart chart = chart(title, "seconds from the others' warm-up (before it: Refresher learning its hot keys)", "hot-key source executions per second");
    for (StrategyKind kind : StrategyKind.all()) {
      int buckets = (int) ((to - from) / bucket) + 1;
      double[] counts = new double[buckets];
      for (ExecutionLog.Execution execution : figures.executions.get(kind)) {
        long at = execution.startMicros();
        if (at >= from && at < to && figures.isHot(execution.rank())) {
          counts[(int) ((at - from) / bucket)] += 1e6 / bucket; // per second
        }
      }
      List<Double> xs = new ArrayList<>();
      List<Double> ys = new ArrayList<>();
      for (int b = 0; b < buckets; b++) {
        xs.add((from + b * bucket - data.warmMicros()) / 1e6);
        ys.add(counts[b]);
      }
      add(chart, kind, xs, ys);
    }
    return chart;
  }

  private static XYChart chart(String title, String xTitle, String yTitle) {
    XYChart chart = new XYChartBuilder().width(1000).height(500).title(title).xAxisTitle(xTitle).yAxisTitle(yTitle).build();
    chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideE);
    chart.getStyler().setDefaultSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Line);
    chart.getStyler().setChartBackgroundColor(Color.WHITE);
    chart.getStyler().setPlotGridLinesColor(new Color(225, 225, 225));
    return chart;
  }

  private static void add(XYChart chart, StrategyKind kind, List<Double> xs, List<Double> ys) {
    if (xs.isEmpty()) {
      return;
    }
    XYSeries series = chart.addSeries(kind.label(), xs, ys);
    series.setMarker(SeriesMarkers.NONE);
    series.setLineColor(COLORS[kind.ordinal()]);
    series.setLineStyle(new BasicStroke(kind == StrategyKind.REFRESHER || kind == StrategyKind.NEVER_EXPIRES ? 2.2f : 1.4f));
  }
}
