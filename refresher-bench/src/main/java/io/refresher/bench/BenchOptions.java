package io.refresher.bench;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import net.sourceforge.argparse4j.ArgumentParsers;
import net.sourceforge.argparse4j.impl.Arguments;
import net.sourceforge.argparse4j.inf.ArgumentParser;
import net.sourceforge.argparse4j.inf.ArgumentParserException;
import net.sourceforge.argparse4j.inf.MutuallyExclusiveGroup;
import net.sourceforge.argparse4j.inf.Namespace;

/**
 * The benchmark's command line, read by argparse4j: an unknown option, a missing value or a phase
 * that does not exist is an error with the usage, never a different run than the one asked for (a
 * typo such as {@code --quik} once started the full run).
 *
 * @param quick shorter and smaller phases
 * @param tiny the smallest phases, which measure nothing worth keeping (the smoke test's)
 * @param label the run's name, the results directory's suffix
 * @param out where the results directory is made
 * @param phases the phases to run, in the order they run; all of them when none was named
 */
record BenchOptions(boolean quick, boolean tiny, String label, Path out, List<String> phases) {

  /**
   * The options {@code args} say. Throws what argparse4j found wrong (the caller prints it with the
   * usage through {@link ArgumentParserException#getParser()}), or its {@link
   * net.sourceforge.argparse4j.helper.HelpScreenException} after printing the help asked for.
   */
  static BenchOptions parse(String[] args, List<String> phaseIds) throws ArgumentParserException {
    Namespace namespace = parser(phaseIds).parseArgs(args);
    boolean tiny = namespace.getBoolean("tiny");
    boolean quick = tiny || namespace.getBoolean("quick");
    String label = Optional.ofNullable(namespace.getString("label")).orElse(tiny ? "tiny" : quick ? "quick" : "full");
    List<String> asked = namespace.getList("phases");
    return new BenchOptions(quick, tiny, label, Path.of(namespace.getString("out")),
        asked == null ? List.copyOf(phaseIds) : inRunOrder(asked, phaseIds));
  }

  private static List<String> inRunOrder(List<String> asked, List<String> phaseIds) {
    List<String> ordered = new ArrayList<>(phaseIds);
    ordered.retainAll(asked);
    return List.copyOf(ordered);
  }

  private static ArgumentParser parser(List<String> phaseIds) {
    ArgumentParser parser = ArgumentParsers.newFor("refresher-bench").addHelp(true).build()
        .description("Measures the service on this machine: the ceiling of Redis and PostgreSQL first, then the"
            + " service's phases, on embedded servers, into <out>/<date>-<label>/ (report.md, summary.json, charts).");
    MutuallyExclusiveGroup size = parser.addMutuallyExclusiveGroup("size (default: the full run)");
    size.addArgument("--quick").action(Arguments.storeTrue()).help("shorter and smaller phases: under 10 minutes on 2 cores");
    size.addArgument("--tiny").action(Arguments.storeTrue()).help("the smallest phases, a smoke test: measures nothing worth keeping");
    parser.addArgument("--label").metavar("NAME").help("the run's name (default: full, quick or tiny)");
    parser.addArgument("--out").metavar("DIR").setDefault("bench/results").help("where the run's directory is made (default: bench/results)");
    parser.addArgument("--phases").metavar("PHASE,...").type((p, arg, value) -> phases(p, value, phaseIds))
        .help("the phases to run, comma-separated, of " + String.join(", ", phaseIds) + " (default: all, in that order)");
    return parser;
  }

  private static List<String> phases(ArgumentParser parser, String value, List<String> phaseIds) throws ArgumentParserException {
    Set<String> asked = new LinkedHashSet<>();
    for (String phase : value.split(",", -1)) {
      String id = phase.strip();
      if (!phaseIds.contains(id)) {
        throw new ArgumentParserException(
            "argument --phases: no phase '" + id + "' (the phases are " + String.join(", ", phaseIds) + ")", parser);
      }
      asked.add(id);
    }
    return List.copyOf(asked);
  }
}
