package io.refresher.bench.jmh;

import io.refresher.bench.BenchContext;
import io.refresher.bench.Phase;
import io.refresher.bench.report.BenchReport;
import io.refresher.bench.report.Fmt;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * The JMH micro-benchmarks of this package (the client's count and read, the
 * write's Java side, the TTR decision, the value size check), run from the bench: one table of
 * scores, and the raw figures in summary.json.
 *
 * <p>Full: 1 fork, warmup 3 × 2 s, 5 × 2 s measured. Quick: 1 fork, 1 × 1 s, 2 × 1 s. Tiny (CI): no
 * fork and one 200 ms iteration, no warmup: a smoke test that every benchmark runs, its figures
 * mostly those of code not yet compiled. Alone: {@code java -cp refresher-bench.jar
 * org.openjdk.jmh.Main <regex>}.
 */
public final class JmhPhase implements Phase {

  private static final String PACKAGE = "io.refresher.bench.jmh";

  /** What each benchmark measures, in the report's words; the table's order. */
  private static final List<Map.Entry<String, String>> MEASURES =
      List.of(
          Map.entry("ClientBenchmark.record", "client `record(key)` of a key already pending: the count on the application thread"),
          Map.entry("ClientBenchmark.recordTwoThreads", "the same from 2 threads on one client (time per call of each)"),
          Map.entry(
              "ClientBenchmark.recordNewKeysThenFlush",
              "`record(key)` of a key not pending since the last flush, plus its share of the flush's Java side (drain, shards, script arguments), per key"),
          Map.entry(
              "ClientBenchmark.get",
              "client `get(key, ttl, loader)` of a present value far from expiry, network left out (fake Redisson): count, READ script's keys, reply parsed, XFetch (writer=client) or expiry (writer=service) decision"),
          Map.entry("ClientBenchmark.shouldRecompute", "XFetch's decision alone (`EarlyRecompute.shouldRecompute`)"),
          Map.entry("ClientBenchmark.fakeEvalOnly", "baseline: the fake Redisson's own cost inside `get`"),
          Map.entry(
              "WriteBenchmark.write",
              "service `RedisCacheStore.write`, network left out: queued for its batch (of one here), WRITE script's keys and arguments, reply parsed (status, `recent` durations)"),
          Map.entry("TtrBenchmark.decide", "`AdaptiveTtr.decide`, once per refresh: samples=0 is a first refresh, 20 the full history"),
          Map.entry("Utf8LengthBenchmark.utf8Length", "`Refresher.utf8Length` of a 4 KB value, the size check of every refresh"),
          Map.entry("Utf8LengthBenchmark.getBytesLength", "`getBytes(UTF_8).length` of the same value: what utf8Length avoids"),
          Map.entry("RoundTripBenchmark.clientGet", "round trip, embedded Redis: client `get(key)` (counted `GET`)"),
          Map.entry("RoundTripBenchmark.clientGetWithLoader", "round trip, embedded Redis: client `get(key, ttl, loader)` of a present value (READ script)"),
          Map.entry("RoundTripBenchmark.serviceWrite", "round trip, embedded Redis: the service's fenced WRITE script"));

  @Override
  public String id() {
    return "jmh";
  }

  @Override
  public void run(BenchContext context, BenchReport report) throws Exception {
    int forks = context.tiny() ? 0 : 1;
    ChainedOptionsBuilder options =
        new OptionsBuilder()
            .include(PACKAGE.replace(".", "\\.") + "\\..*")
            // The round trips use the run's Redis rather than starting their own.
            .param("redisUrl", context.redis().url())
            .forks(forks)
            .shouldFailOnError(true);
    String settings;
    if (context.tiny()) {
      options
          .warmupIterations(0)
          .measurementIterations(1)
          .measurementTime(TimeValue.milliseconds(200));
      settings = "tiny: no fork, no warmup, one 200 ms iteration per benchmark";
    } else if (context.quick()) {
      options
          .warmupIterations(1)
          .warmupTime(TimeValue.seconds(1))
          .measurementIterations(2)
          .measurementTime(TimeValue.seconds(1));
      settings = "quick: 1 fork, warmup 1 × 1 s, 2 × 1 s measured";
    } else {
      options
          .warmupIterations(3)
          .warmupTime(TimeValue.seconds(2))
          .measurementIterations(5)
          .measurementTime(TimeValue.seconds(2));
      settings = "full: 1 fork, warmup 3 × 2 s, 5 × 2 s measured";
    }
    long started = System.nanoTime();
    Collection<RunResult> results = new Runner(options.build()).run();
    double seconds = (System.nanoTime() - started) / 1e9;

    List<RunResult> sorted = new ArrayList<>(results);
    sorted.sort(Comparator.comparing((RunResult r) -> order(shortName(r.getParams()))).thenComparing(r -> label(r.getParams())));
    List<List<String>> rows = new ArrayList<>();
    List<Map<String, Object>> raw = new ArrayList<>();
    for (RunResult result : sorted) {
      BenchmarkParams params = result.getParams();
      Result<?> primary = result.getPrimaryResult();
      double error = primary.getScoreError();
      rows.add(
          List.of(
              label(params),
              params.getMode().shortLabel(),
              Fmt.number(primary.getScore()) + (Double.isNaN(error) ? "" : " ± " + Fmt.number(error)),
              primary.getScoreUnit()));
      Map<String, Object> figures = new LinkedHashMap<>();
      figures.put("benchmark", shortName(params));
      figures.put("params", shownParams(params));
      figures.put("mode", params.getMode().shortLabel());
      figures.put("score", primary.getScore());
      figures.put("error", Double.isNaN(error) ? null : error); // 99.9 % half-width; JMH gives none below 3 iterations
      figures.put("unit", primary.getScoreUnit());
      figures.put("samples", primary.getSampleCount());
      raw.add(figures);
    }

    BenchReport.Section section = report.section(id(), "JMH micro-benchmarks");
    section.paragraph(
        "The hot paths' Java side with JMH, one thread unless named ("
            + settings
            + "; "
            + Fmt.number(seconds)
            + " s). `fake Redisson`: the real client or store on a Redisson stand-in that answers at"
            + " once, so Redisson's encoding, Netty and the server are left out; the round trips put"
            + " them back (on this run's embedded Redis). Error: JMH's 99.9 % interval, given from 3"
            + " measured iterations on (full runs).");
    if (forks == 0) {
      section.paragraph(
          "Not forked: the benchmarks ran inside the bench's own JVM, one after the other (so one"
              + " benchmark's profile can slow the next), without warmup. Only a check that each runs;"
              + " take figures from `--quick` or a full run.");
    }
    section.table(null, List.of("benchmark", "mode", "score ± error", "unit"), rows);
    section.paragraph(
        sorted.stream()
            .map(r -> shortName(r.getParams()))
            .distinct()
            .map(name -> "- `" + name + "`: " + measures(name))
            .collect(Collectors.joining("\n")));
    section.put("settings", settings);
    section.put("forks", forks);
    section.put("seconds", seconds);
    section.put("benchmarks", raw);
  }

  private static int order(String name) {
    for (int i = 0; i < MEASURES.size(); i++) {
      if (MEASURES.get(i).getKey().equals(name)) {
        return i;
      }
    }
    return MEASURES.size();
  }

  private static String measures(String name) {
    int at = order(name);
    return at < MEASURES.size() ? MEASURES.get(at).getValue() : "(not described in JmhPhase)";
  }

  /** {@code ClientBenchmark.get} from the full name. */
  private static String shortName(BenchmarkParams params) {
    return params.getBenchmark().substring(PACKAGE.length() + 1);
  }

  /** The parameters that tell results apart (not the Redis address). */
  private static Map<String, String> shownParams(BenchmarkParams params) {
    Map<String, String> shown = new LinkedHashMap<>();
    for (String key : params.getParamsKeys()) {
      if (!key.equals("redisUrl")) {
        shown.put(key, params.getParam(key));
      }
    }
    return shown;
  }

  private static String label(BenchmarkParams params) {
    Map<String, String> shown = shownParams(params);
    if (shown.isEmpty()) {
      return shortName(params);
    }
    return shortName(params)
        + " ("
        + shown.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue()).collect(Collectors.joining(", "))
        + ")";
  }
}
