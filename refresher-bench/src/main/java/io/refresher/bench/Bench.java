package io.refresher.bench;

import io.refresher.bench.report.BenchReport;
import io.refresher.embedded.EmbeddedPostgreSql;
import io.refresher.embedded.EmbeddedRedis;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import net.sourceforge.argparse4j.inf.ArgumentParserException;
import net.sourceforge.argparse4j.helper.HelpScreenException;

/**
 * The benchmark run: the ceiling first, then the service's phases, on one embedded Redis and
 * PostgreSQL, into {@code bench/results/<date>-<label>/} (report.md, summary.json, charts).
 *
 * <pre>
 * java -Xmx2g -jar refresher-bench/target/refresher-bench.jar [--quick | --tiny] [--label name]
 *     [--out bench/results] [--phases ceiling,throughput,...]
 * </pre>
 *
 * <p>{@link BenchOptions} reads the options; {@code --help} lists them.
 */
public final class Bench {

  private Bench() {}

  /** Every phase, in the order they run; the ceiling comes first so that the others can use it. */
  static List<Phase> allPhases() {
    return List.of(
        new CeilingPhase(),
        new io.refresher.bench.throughput.ThroughputPhase(),
        // after the throughput phase: compares the batch form with its maximum
        new io.refresher.bench.throughput.BatchPhase(),
        new io.refresher.bench.stampede.StampedePhase(),
        new io.refresher.bench.jmh.JmhPhase(),
        // after the service's throughput phase: uses its maximum (BenchReport.SERVICE_MAX_REFRESHES)
        new ScalePhase(),
        new CountingPhase(),
        new MemoryPhase());
  }

  public static void main(String[] args) throws Exception {
    System.setProperty("java.awt.headless", "true"); // charts are drawn without a display
    int status = run(args);
    System.exit(status);
  }

  /**
   * Runs the benchmark; returns the process status: 0 when every phase ran (or the help was asked
   * for), 1 when a phase failed, 2 when the options say no run it can make (with the usage).
   */
  static int run(String[] args) throws Exception {
    BenchOptions options;
    try {
      options = BenchOptions.parse(args, allPhases().stream().map(Phase::id).toList());
    } catch (HelpScreenException help) {
      return 0;
    } catch (ArgumentParserException e) {
      e.getParser().handleError(e, new PrintWriter(System.err, true));
      return 2;
    }
    Path directory = options.out().resolve(LocalDate.now() + "-" + options.label());
    BenchReport report = new BenchReport(directory, "Refresher benchmark (" + options.label() + ")");
    describeMachine(report, String.join(" ", args));
    int failed = 0;
    try (EmbeddedPostgreSql postgres = EmbeddedPostgreSql.start();
        EmbeddedRedis redis = EmbeddedRedis.start()) {
      BenchContext context = new BenchContext(redis, postgres, options.quick(), options.tiny());
      for (Phase phase : allPhases()) {
        if (!options.phases().contains(phase.id())) {
          continue;
        }
        long started = System.nanoTime();
        System.out.println("== phase " + phase.id());
        try {
          phase.run(context, report);
        } catch (Exception | AssertionError e) {
          failed++;
          System.err.println("phase " + phase.id() + " failed: " + e);
          e.printStackTrace();
          report.section(phase.id() + "-failed", "Phase " + phase.id() + " FAILED").paragraph("`" + e + "`");
        }
        System.out.printf("== phase %s took %.1f s%n", phase.id(), (System.nanoTime() - started) / 1e9);
        report.write();
      }
    }
    report.write();
    System.out.println("report: " + directory.resolve("report.md").toAbsolutePath());
    return failed == 0 ? 0 : 1;
  }

  private static void describeMachine(BenchReport report, String args) {
    Runtime runtime = Runtime.getRuntime();
    report.machine("date", LocalDate.now());
    report.machine("command", "java -jar refresher-bench.jar " + args);
    report.machine("cores", runtime.availableProcessors());
    report.machine("cpu", cpuModel());
    report.machine("memory", String.format("%.1f GiB", totalMemoryBytes() / (1024.0 * 1024 * 1024)));
    report.machine("os", System.getProperty("os.name") + " " + System.getProperty("os.version"));
    report.machine("java", System.getProperty("java.vm.name") + " " + System.getProperty("java.version"));
    report.machine("heap max", String.format("%.0f MiB", runtime.maxMemory() / (1024.0 * 1024)));
    report.machine("jvm args", String.join(" ", ManagementFactory.getRuntimeMXBean().getInputArguments()));
    report.machine("servers", "embedded Redis and PostgreSQL on the same machine as the service and the load");
  }

  private static String cpuModel() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
        if (line.startsWith("model name")) {
          return line.substring(line.indexOf(':') + 1).strip();
        }
      }
    } catch (Exception e) {
      // not Linux
    }
    return System.getProperty("os.arch");
  }

  private static long totalMemoryBytes() {
    if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
      return os.getTotalMemorySize();
    }
    return -1;
  }

  static Map<String, Object> map(Object... pairs) {
    Map<String, Object> map = new LinkedHashMap<>();
    for (int i = 0; i + 1 < pairs.length; i += 2) {
      map.put((String) pairs[i], pairs[i + 1]);
    }
    return map;
  }

  static <T> List<T> list(Iterable<T> items) {
    List<T> list = new ArrayList<>();
    items.forEach(list::add);
    return list;
  }
}
