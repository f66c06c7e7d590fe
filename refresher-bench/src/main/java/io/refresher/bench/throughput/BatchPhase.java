package io.refresher.bench.throughput;

import com.codahale.metrics.Meter;
import io.refresher.bench.BenchConfig;
import io.refresher.bench.BenchContext;
import io.refresher.bench.BenchItems;
import io.refresher.bench.Phase;
import io.refresher.bench.report.BenchReport;
import io.refresher.bench.report.Fmt;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;

/**
 * Batch sources against single-key ones (issue 23, acceptance 1 and the batch ratio of 2): the same
 * primary-key lookup, as the {@code item} source (one query per key) and as {@code item-batch}
 * (one {@code WHERE id = ANY(...)} per 500 keys at most, keys due within a second together).
 *
 * <ol>
 *   <li><b>Burst</b>, per form: every key due at once, the time until all are refreshed, in keys/s,
 *       and the source queries it took ({@code pg_stat_statements});
 *   <li><b>Steady</b>, per form at the same rate: 10,000 keys refreshed every 10 s (1,000 keys/s;
 *       the tiny run's 250 every second),
 *       their due times spread over the period; the lag (actual start − planned start, every key)
 *       and the source queries per refreshed key. The keys of one form are taken out of the due
 *       index before the other's run, so each run has the service to itself.
 * </ol>
 */
public final class BatchPhase implements Phase {

  /**
   * Its own Redis database, emptied before and after: the throughput phase's {@code item:<id>}
   * keys stay due in database 0, and this phase's service would refresh them during its bursts (a
   * full run's single-key burst never reached its count: those keys were already planned an hour
   * ahead, so its due entries were not added).
   */
  static final int REDIS_DB = 4;

  private static final Duration TTR = Duration.ofSeconds(1);
  /** The steady runs' refresh period (TTL − TTR); the tiny run's is shorter, to keep it short. */
  private static final Duration PERIOD = Duration.ofSeconds(10);
  private static final Duration TINY_PERIOD = Duration.ofSeconds(1);

  /** A form of the lookup: its keys' prefix, its source, and the alias its queries name. */
  private record Form(String name, String prefix, String source, String queryMarker) {}

  private static final Form SINGLE = new Form("single-key (`item`)", "item:", "item", "bench_item_query");
  private static final Form BATCH = new Form("batch (`item-batch`, up to 500 keys per query)", "batch:item:", "item-batch", "bench_batch_item");

  /** One run's figures. */
  record Run(
      String form,
      String kind,
      long keys,
      double seconds,
      double keysPerSecond,
      long queries,
      double lagP50Ms,
      double lagP99Ms,
      double lagMaxMs,
      long failed) {

    double queriesPerKey() {
      return keys == 0 ? 0 : (double) queries / keys;
    }
  }

  @Override
  public String id() {
    return "batch";
  }

  @Override
  public void run(BenchContext context, BenchReport report) throws Exception {
    int steadyKeys = context.pick(10_000, 10_000, 250);
    int burstKeys = context.pick(50_000, 40_000, 1_000);
    int measureSeconds = context.pick(60, 30, 2);
    Duration period = context.tiny() ? TINY_PERIOD : PERIOD;
    String dbUrl = context.newDatabase("refresher_batch");
    BenchItems.create(dbUrl, burstKeys);
    BenchReport.Section section = report.section(id(), "Batch sources against single-key sources");
    List<Run> runs = new ArrayList<>();
    String redisUrl = context.redis().url() + "/" + REDIS_DB;
    io.refresher.bench.RedisDatabases.flush(redisUrl);
    try (ServiceUnderTest service = ServiceUnderTest.start(BenchConfig.of(redisUrl, dbUrl, TTR))) {
      for (Form form : List.of(SINGLE, BATCH)) {
        BenchItems.register(dbUrl, form.prefix(), form.source(), 1, burstKeys, Duration.ofHours(1), "always", Duration.ZERO);
      }
      for (Form form : List.of(SINGLE, BATCH)) {
        runs.add(burst(service, dbUrl, form, burstKeys));
        System.out.println("batch: " + runs.get(runs.size() - 1));
        runs.add(steady(service, dbUrl, form, steadyKeys, period, measureSeconds));
        System.out.println("batch: " + runs.get(runs.size() - 1));
        service.parts().dueIndex().remove(keys(form, burstKeys));
      }
    }
    io.refresher.bench.RedisDatabases.flush(redisUrl);
    write(section, report, runs, steadyKeys, period);
  }

  /** Every key of the form due now; the time until all are refreshed. */
  private static Run burst(ServiceUnderTest service, String dbUrl, Form form, int keys) throws Exception {
    Measuring measuring = Measuring.start(service, dbUrl, form);
    long at = System.currentTimeMillis();
    List<String> all = keys(form, keys);
    for (int from = 0; from < all.size(); from += 5_000) {
      service.parts().dueIndex().addMissing(all.subList(from, Math.min(all.size(), from + 5_000)), at);
    }
    waitFor(() -> measuring.refreshed() >= keys, Duration.ofMinutes(10));
    return measuring.end("burst", keys);
  }

  /** The first {@code keys} keys of the form refreshed every {@code period}, due evenly over it. */
  private static Run steady(ServiceUnderTest service, String dbUrl, Form form, int keys, Duration period, int measureSeconds)
      throws Exception {
    try (Connection db = BenchItems.connect(dbUrl);
        Statement sql = db.createStatement()) {
      sql.executeUpdate(
          "UPDATE refresher.refresher_key SET ttl_ms = " + period.plus(TTR).toMillis() + ", updated_at = now()"
              + " WHERE source = '" + form.source() + "' AND (params->>'id')::bigint <= " + keys);
    }
    long start = System.currentTimeMillis() + 500;
    Map<String, Long> due = new HashMap<>();
    List<String> all = keys(form, keys);
    for (int i = 0; i < all.size(); i++) {
      due.put(all.get(i), start + (long) (i * (double) period.toMillis() / keys));
    }
    service.parts().dueIndex().reschedule(due);
    // one period for every key to be refreshed once on its new TTL (and its batch window), then measure
    TimeUnit.MILLISECONDS.sleep(period.toMillis() + 1_500);
    Measuring measuring = Measuring.start(service, dbUrl, form);
    TimeUnit.MILLISECONDS.sleep(Math.max(measureSeconds * 1000L, 2 * period.toMillis()));
    return measuring.end("steady", measuring.refreshed());
  }

  /** A run of one form under way: the counts it is measured against, taken when it started. */
  private record Measuring(
      ServiceUnderTest service, String dbUrl, Form form, Meter refreshedMeter, Meter failedMeter,
      long refreshedBefore, long failedBefore, long queriesBefore, long startedNanos) {

    static Measuring start(ServiceUnderTest service, String dbUrl, Form form) throws SQLException {
      Meter refreshed = service.metrics().meter("refresher.source." + form.source() + ".refreshed");
      Meter failed = service.metrics().meter("refresher.source." + form.source() + ".failed");
      long queries = queries(dbUrl, form);
      service.lag().reset();
      return new Measuring(service, dbUrl, form, refreshed, failed, refreshed.getCount(), failed.getCount(), queries, System.nanoTime());
    }

    long refreshed() {
      return refreshedMeter.getCount() - refreshedBefore;
    }

    Run end(String kind, long keys) throws SQLException {
      double seconds = (System.nanoTime() - startedNanos) / 1e9;
      Histogram lag = service.lag().interval();
      return new Run(
          form.name(), kind, keys, seconds, keys / seconds, queries(dbUrl, form) - queriesBefore,
          lag.getValueAtPercentile(50) / 1e6, lag.getValueAtPercentile(99) / 1e6, lag.getMaxValue() / 1e6,
          failedMeter.getCount() - failedBefore);
    }
  }

  private static List<String> keys(Form form, int count) {
    List<String> keys = new ArrayList<>(count);
    for (int i = 1; i <= count; i++) {
      keys.add(form.prefix() + i);
    }
    return keys;
  }

  /** The form's source queries so far, single-key and batch, by {@code pg_stat_statements}. */
  private static long queries(String dbUrl, Form form) throws SQLException {
    try (Connection db = BenchItems.connect(dbUrl);
        Statement sql = db.createStatement();
        ResultSet rows =
            sql.executeQuery(
                "SELECT coalesce(sum(calls), 0) FROM pg_stat_statements"
                    + " WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())"
                    + " AND query LIKE '%" + form.queryMarker() + "%' AND query NOT LIKE '%pg_stat_statements%'")) {
      rows.next();
      return rows.getLong(1);
    }
  }

  private static void write(BenchReport.Section section, BenchReport report, List<Run> runs, int steadyKeys, Duration period) {
    section.paragraph(
        "The service runs in this JVM with `bench.yml`, on the run's Redis and PostgreSQL. Both sources read one"
            + " row of `bench_item` by its primary key; `item-batch` has a batch form (`WHERE id = ANY(:id)`,"
            + " `maxBatch` 500, `window` 1 s: keys due within a second of each other are planned together, earlier"
            + " only). Burst: every key of the form due at once. Steady: "
            + Fmt.number(steadyKeys)
            + " keys refreshed every "
            + period.toSeconds()
            + " s (TTL "
            + period.plus(TTR).toSeconds()
            + " s, fixed TTR "
            + TTR.toSeconds()
            + " s), their due times spread over the period, one form at a time. Queries are the source's statements"
            + " counted by `pg_stat_statements` (single-key and batch); lag is a refresh's actual start minus its"
            + " planned start (for a batch key, the planned start on the window's grid).");
    List<List<String>> rows = new ArrayList<>();
    for (Run run : runs) {
      rows.add(
          List.of(
              run.form(),
              run.kind(),
              Fmt.number(run.keys()),
              Fmt.millis(run.seconds() * 1000),
              Fmt.rate(run.keysPerSecond()),
              report.ofCeiling(run.keysPerSecond()),
              Fmt.number(run.queries()),
              String.format("%.4f", run.queriesPerKey()),
              Fmt.millis(run.lagP50Ms()),
              Fmt.millis(run.lagP99Ms()),
              Fmt.millis(run.lagMaxMs()),
              Fmt.number(run.failed())));
    }
    section.table(
        "Runs",
        List.of("form", "run", "keys refreshed", "time", "keys/s", "of ceiling", "source queries", "queries per key",
            "lag p50", "lag p99", "lag max", "failed"),
        rows);
    Run singleSteady = find(runs, SINGLE, "steady");
    Run batchSteady = find(runs, BATCH, "steady");
    Run singleBurst = find(runs, SINGLE, "burst");
    Run batchBurst = find(runs, BATCH, "burst");
    OptionalDouble serviceMax = report.shared(BenchReport.SERVICE_MAX_REFRESHES);
    double singleThroughput = serviceMax.isPresent() ? serviceMax.getAsDouble() : singleBurst.keysPerSecond();
    String singleFrom = serviceMax.isPresent() ? "the throughput phase's maximum" : "the single-key burst (the throughput phase did not run)";
    List<List<String>> targets = new ArrayList<>();
    targets.add(
        List.of(
            "batch source: queries per refreshed key ≤ 0.02",
            String.format("%.4f (%s queries for %s keys)", batchSteady.queriesPerKey(), Fmt.number(batchSteady.queries()), Fmt.number(batchSteady.keys())),
            Fmt.met(batchSteady.queriesPerKey() <= 0.02)));
    targets.add(
        List.of(
            "batch lag p99 within 50 ms of the single-key run at the same rate",
            Fmt.millis(batchSteady.lagP99Ms()) + " against " + Fmt.millis(singleSteady.lagP99Ms()),
            Fmt.met(batchSteady.lagP99Ms() <= singleSteady.lagP99Ms() + 50)));
    targets.add(
        List.of(
            "batch throughput (keys/s) ≥ 2 × single-key throughput",
            Fmt.rate(batchBurst.keysPerSecond()) + "/s against " + Fmt.rate(singleThroughput) + "/s (" + singleFrom + ") = "
                + String.format("%.2f", batchBurst.keysPerSecond() / Math.max(1, singleThroughput)) + " ×",
            Fmt.met(batchBurst.keysPerSecond() >= 2 * singleThroughput)));
    long failed = runs.stream().mapToLong(Run::failed).sum();
    targets.add(List.of("no failed refresh", Fmt.number(failed), Fmt.met(failed == 0)));
    section.table("Targets (issue 23, acceptance 1 and 2)", List.of("target", "measured", "met"), targets);
    section.put("runs", runs).put("steadyKeys", steadyKeys).put("singleThroughputForRatio", singleThroughput);
  }

  private static Run find(List<Run> runs, Form form, String kind) {
    return runs.stream().filter(run -> run.form().equals(form.name()) && run.kind().equals(kind)).findFirst().orElseThrow();
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
