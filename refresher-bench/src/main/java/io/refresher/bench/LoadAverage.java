package io.refresher.bench;

import java.nio.file.Files;
import java.nio.file.Path;

/** The machine's 1-minute load average (Linux), to say what else ran beside a measurement. */
final class LoadAverage {

  private LoadAverage() {}

  /** "1.23", or "n/a" where there is no {@code /proc/loadavg}. */
  static String now() {
    try {
      return Files.readString(Path.of("/proc/loadavg")).split(" ")[0];
    } catch (Exception e) {
      return "n/a";
    }
  }

  /** A sentence for a section: the load when the phase started, against the cores. */
  static String sentence(String atStart) {
    return "Load average (1 min) when the phase started: "
        + atStart
        + " on "
        + Runtime.getRuntime().availableProcessors()
        + " cores (it counts every runnable thread: this run's earlier phases too, and other processes on the"
        + " machine, which make the figures low).";
  }
}
