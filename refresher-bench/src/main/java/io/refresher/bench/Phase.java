package io.refresher.bench;

import io.refresher.bench.report.BenchReport;

/** One part of the benchmark run: measures something and adds its section to the report. */
public interface Phase {

  /** Short name, used on the command line ({@code --phases}) and as its key in summary.json. */
  String id();

  void run(BenchContext context, BenchReport report) throws Exception;
}
