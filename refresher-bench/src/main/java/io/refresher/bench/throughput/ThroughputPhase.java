package io.refresher.bench.throughput;

import com.codahale.metrics.Meter;
import io.refresher.bench.BenchConfig;
import io.refresher.bench.BenchContext;
import io.refresher.bench.BenchItems;
import io.refresher.bench.Phase;
import io.refresher.bench.RedisCommandStats;
import io.refresher.bench.report.BenchReport;
import io.refresher.bench.report.Fmt;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * How many refreshes per second one replica sustains on this machine, against the run's ceiling.
 *
 * <ol>
 *   <li><b>burst</b>: every key due at once (a mass expiry, or a backlog after an outage): how fast
 *       are they all refreshed;
 *   <li><b>steps</b>: a steady rate offered at fractions of the ceiling. The keys' due times are
 *       spread evenly over one refresh period and their TTL set so that the period gives the rate
 *       (a key is refreshed every TTL − TTR, the TTR fixed). Per step: the rate achieved, the
 *       refresh lag (actual start − planned start, every sample), Redis requests and commands per
 *       refresh, {@code PUBLISH}es, PostgreSQL rows written, and where the CPU went;
 *   <li><b>80 %</b>: the highest rate sustained (achieved ≥ 97 % of offered with the lag bounded),
 *       then a step at 80 % of it, whose lag is the figure the target is about.
 * </ol>
 *
 * <p>The ascent stops after two steps in a row not sustained. Then a step at 80 % of the maximum, one at
 * twice the maximum (the overload: the service must keep its maximum, fail nothing, and disperse
 * the backlog), and one at 80 % again right after it. A JFR profile of the overloaded step says
 * where the service's own time goes.
 */
public final class ThroughputPhase implements Phase {

  /** A step is sustained when it achieves this much of the offered rate... */
  private static final double SUSTAINED = 0.97;
  /** ... and its lag p99 stays under this (a service falling behind has a lag that only grows). */
  private static final Duration BOUNDED_LAG = Duration.ofSeconds(1);

  private static final Duration TTR = Duration.ofSeconds(1);

  static final String EIGHTY_BEFORE = "80 % of max, before the 2× overload";
  static final String OVERLOAD = "2× max (overload)";
  static final String EIGHTY_AFTER = "80 % of max, right after the 2× overload";

  @Override
  public String id() {
    return "throughput";
  }

  /** One step's figures. */
  record Step(
      String name,
      double offered,
      double achieved,
      double lagP50Ms,
      double lagP99Ms,
      double lagP999Ms,
      double lagMaxMs,
      double requestsPerRefresh,
      double commandsPerRefresh,
      long publishes,
      long rowsWritten,
      long failed,
      Map<String, Long> skipped,
      Map<String, Double> cores,
      io.refresher.bench.GcPauses.Seen gc) {

    boolean sustained() {
      return achieved >= SUSTAINED * offered && lagP99Ms < BOUNDED_LAG.toMillis();
    }
  }

  @Override
  public void run(BenchContext context, BenchReport report) throws Exception {
    int keys = context.pick(40_000, 20_000, 250);
    int workers = BenchConfig.WORKERS;
    int measureSeconds = context.pick(20, 10, 1);
    String dbUrl = context.newDatabase("refresher_throughput");
    BenchItems.create(dbUrl, keys);
    BenchReport.Section section = report.section(id(), "Refresh throughput of one replica");
    try (ServiceUnderTest service = ServiceUnderTest.start(BenchConfig.of(context.redis().url(), dbUrl, TTR))) {
      Meter refreshed = service.metrics().meter("refresher.refresh.refreshed");
      Meter failed = service.metrics().meter("refresher.refresh.failed");
      service.register(1, keys, Duration.ofHours(1));

      // Burst: every key due now.
      long before = refreshed.getCount();
      long started = System.nanoTime();
      service.parts().reconciler().reconcile();
      waitFor(() -> refreshed.getCount() - before >= keys, Duration.ofMinutes(10));
      double burstSeconds = (System.nanoTime() - started) / 1e9;
      double burstRate = keys / burstSeconds;
      System.out.printf("throughput: burst of %d keys in %.2f s = %.0f/s%n", keys, burstSeconds, burstRate);
      service.metrics().getMeters((name, metric) -> name.startsWith("refresher.refresh.") || name.startsWith("refresher.prewarm"))
          .forEach((name, meter) -> System.out.println("  " + name + " " + meter.getCount()));

      // Without a ceiling measured in this run (the phase not run, or it counted nothing), the
      // steps' rates are fractions of 10,000 refreshes/s.
      double ceiling =
          report.ceiling() == null || !(report.ceiling().refreshesPerSecond() > 0) ? 10_000 : report.ceiling().refreshesPerSecond();
      List<Double> fractions =
          System.getProperty("bench.fractions") != null
              ? java.util.Arrays.stream(System.getProperty("bench.fractions").split(",")).map(Double::valueOf).toList()
              : context.tiny() ? List.of(0.1)
                  : context.quick() ? List.of(0.2, 0.3, 0.4, 0.6)
                  : List.of(0.2, 0.3, 0.35, 0.4, 0.5, 0.7, 1.0);
      List<Step> steps = new ArrayList<>();
      JfrProfile.Result profile = null;
      int unsustainedInARow = 0;
      for (double fraction : fractions) {
        double rate = fraction * ceiling;
        // the tiny run has no overload step: its last step is profiled instead
        boolean profiled = context.tiny() && fraction == fractions.get(fractions.size() - 1);
        JfrProfile recording = profiled ? JfrProfile.start() : null;
        Step step = step(service, keys, rate, measureSeconds, refreshed, failed, Fmt.ratio(fraction) + " ceiling");
        if (recording != null) {
          profile = recording.stop();
          recording.close();
        }
        steps.add(step);
        System.out.println("throughput: " + step);
        unsustainedInARow = step.sustained() ? 0 : unsustainedInARow + 1;
        if (unsustainedInARow >= 2 && !context.tiny() && System.getProperty("bench.fractions") == null) {
          // past the maximum: higher steps only overload more (the overload is measured below, at
          // 2x). Two in a row, not one: a full run (2026-12-05) missed the 97 % by a hiccup at
          // 0.30 of the ceiling and would have stopped at half its maximum.
          break;
        }
      }
      double max = 0;
      for (Step step : steps) {
        if (step.sustained()) {
          max = Math.max(max, step.achieved());
        }
      }
      Step atEighty = null;
      Step overload = null;
      Step afterOverload = null;
      if (max > 0) {
        Duration drainAtMost = Duration.ofSeconds(context.pick(180, 60, 20));
        int eightySeconds = context.tiny() ? measureSeconds : measureSeconds * 2;
        atEighty = step(service, keys, 0.8 * max, eightySeconds, refreshed, failed, EIGHTY_BEFORE, drainAtMost);
        steps.add(atEighty);
        System.out.println("throughput: " + atEighty);
        if (!context.tiny()) {
          JfrProfile recording = JfrProfile.start();
          overload = step(service, keys, 2 * max, measureSeconds, refreshed, failed, OVERLOAD, drainAtMost);
          profile = recording.stop();
          recording.close();
          steps.add(overload);
          System.out.println("throughput: " + overload);
          afterOverload = step(service, keys, 0.8 * max, eightySeconds, refreshed, failed, EIGHTY_AFTER, drainAtMost);
          steps.add(afterOverload);
          System.out.println("throughput: " + afterOverload);
        }
        report.share(BenchReport.SERVICE_MAX_REFRESHES, max);
      }
      write(section, report, keys, workers, burstRate, burstSeconds, steps, max, atEighty, overload, afterOverload, profile);
    }
  }

  /** Offers {@code rate} for a settling period and then {@code seconds}, and measures. */
  private static Step step(
      ServiceUnderTest service, int keys, double rate, int seconds, Meter refreshed, Meter failed, String name)
      throws Exception {
    return step(service, keys, rate, seconds, refreshed, failed, name, Duration.ofSeconds(20));
  }

  /**
   * @param drainAtMost how long to wait for the backlog of an overloaded step before to drain (the
   *     step at 80 % of the maximum follows the overloaded ones and waits for all of it)
   */
  private static Step step(
      ServiceUnderTest service,
      int keys,
      double rate,
      int seconds,
      Meter refreshed,
      Meter failed,
      String name,
      Duration drainAtMost)
      throws Exception {
    // A key is refreshed every TTL - TTR: the period that gives the rate with this many keys.
    long periodMillis = Math.max(200, Math.round(keys / rate * 1000));
    service.setTtl(Duration.ofMillis(periodMillis).plus(TTR));
    spreadDueTimes(service, keys, periodMillis);
    // A backlog left by an overloaded step drains first (keys claimed before the spread still run
    // late once), then every key is refreshed once on the new period (its registration is read
    // when it is claimed).
    drain(service, drainAtMost);
    TimeUnit.MILLISECONDS.sleep(periodMillis + 1_000);

    long measureMillis = Math.max(seconds * 1000L, 2 * periodMillis);
    RedisCommandStats redisBefore = RedisCommandStats.of(service.parts().redisson());
    long rowsBefore = service.rowsWritten();
    long refreshedBefore = refreshed.getCount();
    long failedBefore = failed.getCount();
    Map<String, Long> skippedBefore = skipped(service);
    CpuSplit cpu = CpuSplit.start();
    service.lag().reset();
    long started = System.nanoTime();
    io.refresher.bench.GcPauses.Seen gc;
    try (io.refresher.bench.GcPauses pauses = io.refresher.bench.GcPauses.start()) {
      TimeUnit.MILLISECONDS.sleep(measureMillis);
      gc = pauses.seen();
    }
    double elapsed = (System.nanoTime() - started) / 1e9;
    long refreshes = refreshed.getCount() - refreshedBefore;
    Histogram lag = service.lag().interval();
    Map<String, Double> cores = cpu.coresUsed();
    RedisCommandStats redis = RedisCommandStats.of(service.parts().redisson()).minus(redisBefore);
    long rows = service.rowsWritten() - rowsBefore;
    double per = Math.max(1, refreshes);
    return new Step(
        name,
        rate,
        refreshes / elapsed,
        lag.getValueAtPercentile(50) / 1e6,
        lag.getValueAtPercentile(99) / 1e6,
        lag.getValueAtPercentile(99.9) / 1e6,
        lag.getMaxValue() / 1e6,
        redis.clientRequests() / per,
        redis.commandsRun() / per,
        redis.of("publish"),
        rows,
        failed.getCount() - failedBefore,
        withLate(minus(skipped(service), skippedBefore), lag),
        cores,
        gc);
  }

  /** Waits until the service is calm again after a step (or {@code atMost}). */
  private static void drain(ServiceUnderTest service, Duration atMost) throws InterruptedException {
    long deadline = System.nanoTime() + atMost.toNanos();
    service.lag().reset();
    while (System.nanoTime() < deadline) {
      TimeUnit.SECONDS.sleep(1);
      Histogram second = service.lag().interval();
      // Calm: a second's refreshes started within 50 ms of their plan, and the dispatcher holds
      // no more than the keys due within its lookahead (an overloaded step leaves thousands).
      if (second.getTotalCount() > 0
          && second.getValueAtPercentile(99) < 50_000_000L
          && service.parts().dispatcher().inFlight() < Math.max(2_000, second.getTotalCount())) {
        return;
      }
    }
    System.out.println("throughput: backlog still draining after " + atMost.toSeconds() + " s");
  }

  /** Skipped refreshes by reason, and claimed keys dropped before they ran, so far. */
  private static Map<String, Long> skipped(ServiceUnderTest service) {
    Map<String, Long> counts = new java.util.TreeMap<>();
    service.metrics()
        .getMeters((name, meter) -> name.startsWith("refresher.refresh.skipped."))
        .forEach((name, meter) -> counts.put(name.substring("refresher.refresh.skipped.".length()), meter.getCount()));
    counts.put("dropped-claims", service.parts().dispatcher().droppedClaims());
    counts.put("adopted-claims", service.parts().dispatcher().adoptedClaims());
    return counts;
  }

  /** Adds how many refreshes started more than a second late (outliers the p99 hides). */
  private static Map<String, Long> withLate(Map<String, Long> counts, Histogram lag) {
    long late = lag.getCountBetweenValues(1_000_000_000L, lag.getMaxValue());
    if (late > 0) {
      counts.put("started >1 s late", late);
    }
    return counts;
  }

  private static Map<String, Long> minus(Map<String, Long> after, Map<String, Long> before) {
    Map<String, Long> delta = new java.util.TreeMap<>();
    after.forEach((name, count) -> {
      long d = count - before.getOrDefault(name, 0L);
      if (d != 0) {
        delta.put(name, d);
      }
    });
    return delta;
  }

  /** Plans key i at now + i/keys of a period, so that the keys come due evenly. */
  private static void spreadDueTimes(ServiceUnderTest service, int keys, long periodMillis) {
    long start = System.currentTimeMillis() + 500;
    Map<String, Long> page = new HashMap<>();
    for (int i = 1; i <= keys; i++) {
      page.put("item:" + i, start + (long) ((i - 1) * (double) periodMillis / keys));
      if (page.size() == 5_000) {
        service.parts().dueIndex().reschedule(page);
        page = new HashMap<>();
      }
    }
    service.parts().dueIndex().reschedule(page);
  }

  private static void write(
      BenchReport.Section section,
      BenchReport report,
      int keys,
      int workers,
      double burstRate,
      double burstSeconds,
      List<Step> steps,
      double max,
      Step atEighty,
      Step overload,
      Step afterOverload,
      JfrProfile.Result profile) {
    section.paragraph(
        "The service runs in this JVM with `bench.yml` ("
            + workers
            + " refresh workers, source pool of "
            + (workers + 2)
            + " connections), on the run's Redis and PostgreSQL; its source is one primary-key lookup. "
            + keys
            + " keys are registered. Lag is a refresh's actual start minus its planned start, every sample of the"
            + " step (HdrHistogram). Requests are the commands clients sent (`INFO commandstats`: a script call counts"
            + " once, whatever it runs); commands include those the scripts ran. Each refresh awaits two round trips"
            + " (its lock, then its write, which also releases the lock); both are batched with the refreshes that"
            + " reach Redis while the previous request is on the wire.");
    section.table(
        "Burst: every key due at once",
        List.of("keys", "time", "refreshes/s", "of ceiling"),
        List.of(List.of(Fmt.number(keys), Fmt.millis(burstSeconds * 1000), Fmt.rate(burstRate), report.ofCeiling(burstRate))));
    List<List<String>> rows = new ArrayList<>();
    for (Step step : steps) {
      rows.add(
          List.of(
              step.name(),
              Fmt.rate(step.offered()),
              Fmt.rate(step.achieved()),
              report.ofCeiling(step.achieved()),
              Fmt.met(step.sustained()),
              Fmt.millis(step.lagP50Ms()),
              Fmt.millis(step.lagP99Ms()),
              Fmt.millis(step.lagMaxMs()),
              Fmt.number(step.requestsPerRefresh()),
              Fmt.number(step.commandsPerRefresh()),
              Fmt.number(step.publishes()),
              Fmt.number(step.rowsWritten()),
              Fmt.number(step.failed()),
              step.skipped().isEmpty() ? "0" : step.skipped().toString(),
              cores(step.cores()),
              Fmt.number(step.gc().pauses()) + ", " + Fmt.millis(step.gc().totalMillis()) + ", longest "
                  + Fmt.millis(step.gc().longestMillis())));
    }
    section.table(
        "Steady rates",
        List.of(
            "step", "offered/s", "achieved/s", "of ceiling", "sustained", "lag p50", "lag p99", "lag max",
            "Redis requests/refresh", "Redis commands/refresh", "PUBLISH", "PG rows written", "failed",
            "skipped", "cores used", "GC pauses (count, in all, longest)"),
        rows);
    double ceiling = report.ceiling() == null ? 0 : report.ceiling().refreshesPerSecond();
    List<List<String>> targets = new ArrayList<>();
    targets.add(List.of("sustained throughput ≥ 0.8 × ceiling", Fmt.rate(max) + "/s = " + report.ofCeiling(max), Fmt.met(ceiling > 0 && max >= 0.8 * ceiling)));
    if (atEighty != null) {
      targets.add(List.of("lag p99 ≤ 50 ms at 80 % of max, before the overload", Fmt.millis(atEighty.lagP99Ms()), Fmt.met(atEighty.lagP99Ms() <= 50)));
      if (afterOverload != null) {
        targets.add(
            List.of(
                "lag p99 ≤ 50 ms at 80 % of max, right after the overload",
                Fmt.millis(afterOverload.lagP99Ms()),
                Fmt.met(afterOverload.lagP99Ms() <= 50)));
      }
      if (overload != null) {
        targets.add(
            List.of(
                "at 2× max, achieved within 10 % of max",
                Fmt.rate(overload.achieved()) + "/s of " + Fmt.rate(overload.offered()) + "/s offered = "
                    + String.format("%.2f", overload.achieved() / max) + " × max",
                Fmt.met(overload.achieved() >= 0.9 * max)));
      }
      long failedAnywhere = steps.stream().mapToLong(Step::failed).sum();
      targets.add(List.of("0 failed refreshes in every step, the overloaded ones included", Fmt.number(failedAnywhere), Fmt.met(failedAnywhere == 0)));
      targets.add(List.of("Redis requests per refresh ≤ 1.2", Fmt.number(atEighty.requestsPerRefresh()), Fmt.met(atEighty.requestsPerRefresh() <= 1.2)));
      targets.add(List.of("no PUBLISH", Fmt.number(atEighty.publishes()), Fmt.met(atEighty.publishes() == 0)));
      targets.add(List.of("no PostgreSQL write per refresh", Fmt.number(atEighty.rowsWritten()) + " rows in the step", Fmt.met(atEighty.rowsWritten() == 0)));
    }
    targets.add(List.of("10,000 refreshes/s on this machine", Fmt.rate(max) + "/s", Fmt.met(max >= 10_000)));
    section.table("Targets", List.of("target", "measured", "met"), targets);
    section.chart("throughput-lag", "Refresh lag against refresh rate", lagChart(steps));
    if (profile != null) {
      List<List<String>> byComponent = new ArrayList<>();
      profile.byComponent().forEach((component, samples) ->
          byComponent.add(List.of(component, Fmt.number(samples), String.format("%.1f %%", 100.0 * samples / Math.max(1, profile.samples())))));
      section.table("Where this JVM's CPU went in the overloaded step (JFR execution samples)", List.of("component", "samples", "share"), byComponent);
      List<List<String>> hot = new ArrayList<>();
      profile.hotMethods().forEach(method -> hot.add(List.of("`" + method.getKey() + "`", Fmt.number(method.getValue()))));
      section.table("Hottest methods (top frame)", List.of("method", "samples"), hot);
    }
    section.put("keys", keys).put("workers", workers).put("burstRefreshesPerSecond", burstRate).put("steps", steps)
        .put("maxSustained", max).put("atEightyPercent", atEighty).put("overload", overload)
        .put("atEightyPercentAfterOverload", afterOverload);
    if (profile != null) {
      section.put("profileByComponent", profile.byComponent());
    }
  }

  private static String cores(Map<String, Double> cores) {
    StringBuilder text = new StringBuilder();
    cores.forEach((kind, used) -> {
      if (used >= 0.05) {
        text.append(text.length() == 0 ? "" : ", ").append(kind).append(' ').append(String.format("%.2f", used));
      }
    });
    return text.toString();
  }

  private static XYChart lagChart(List<Step> steps) {
    XYChart chart =
        new XYChartBuilder().width(800).height(450).title("Refresh lag p99 against achieved rate")
            .xAxisTitle("refreshes/s achieved").yAxisTitle("lag p99 (ms, log)").build();
    chart.getStyler().setYAxisLogarithmic(true);
    List<Double> x = new ArrayList<>();
    List<Double> y = new ArrayList<>();
    List<Double> p50 = new ArrayList<>();
    List<Step> byRate = new ArrayList<>(steps);
    byRate.sort(java.util.Comparator.comparingDouble(Step::achieved));
    for (Step step : byRate) {
      x.add(step.achieved());
      y.add(Math.max(0.1, step.lagP99Ms()));
      p50.add(Math.max(0.1, step.lagP50Ms()));
    }
    XYSeries p99Series = chart.addSeries("lag p99", x, y);
    p99Series.setMarker(SeriesMarkers.CIRCLE);
    XYSeries p50Series = chart.addSeries("lag p50", x, p50);
    p50Series.setMarker(SeriesMarkers.DIAMOND);
    return chart;
  }

  private static void waitFor(java.util.function.BooleanSupplier done, Duration atMost) throws InterruptedException {
    long deadline = System.nanoTime() + atMost.toNanos();
    while (!done.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("not done within " + atMost);
      }
      TimeUnit.MILLISECONDS.sleep(20);
    }
  }
}
