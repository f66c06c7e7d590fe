package io.refresher.bench.throughput;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;

/**
 * CPU time used by each kind of process on this machine (the JVM, Redis, PostgreSQL, the rest)
 * over an interval, from {@code /proc}: where the machine's cores went during a step. Empty where
 * there is no {@code /proc}.
 */
final class CpuSplit {

  private static final double TICKS_PER_SECOND = 100.0; // USER_HZ on Linux

  private final Map<String, Double> before;
  private final long startedNanos;

  private CpuSplit(Map<String, Double> before) {
    this.before = before;
    this.startedNanos = System.nanoTime();
  }

  static CpuSplit start() {
    return new CpuSplit(snapshot());
  }

  /** Cores used by each kind since {@link #start} (1.0 = one core busy the whole time). */
  Map<String, Double> coresUsed() {
    double seconds = (System.nanoTime() - startedNanos) / 1e9;
    Map<String, Double> after = snapshot();
    Map<String, Double> cores = new TreeMap<>();
    after.forEach((kind, cpu) -> {
      double used = (cpu - before.getOrDefault(kind, 0.0)) / seconds;
      if (used >= 0.005) {
        cores.put(kind, used);
      }
    });
    return cores;
  }

  private static Map<String, Double> snapshot() {
    Map<String, Double> seconds = new TreeMap<>();
    try (DirectoryStream<Path> processes = Files.newDirectoryStream(Path.of("/proc"), "[0-9]*")) {
      for (Path process : processes) {
        try {
          String stat = Files.readString(process.resolve("stat"));
          // comm is in parentheses and may hold spaces; the fields after it are space-separated.
          String name = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
          String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
          double cpu = (Long.parseLong(fields[11]) + Long.parseLong(fields[12])) / TICKS_PER_SECOND;
          seconds.merge(kind(name, Long.parseLong(process.getFileName().toString())), cpu, Double::sum);
        } catch (IOException | RuntimeException e) {
          // the process ended meanwhile
        }
      }
    } catch (IOException e) {
      return Map.of();
    }
    return seconds;
  }

  private static final long SELF = ProcessHandle.current().pid();

  private static String kind(String name, long pid) {
    if (pid == SELF) {
      return "this JVM (service and load)";
    }
    if (name.startsWith("postgres")) {
      return "postgres";
    }
    if (name.startsWith("redis")) {
      return "redis";
    }
    if (name.equals("java")) {
      return "other JVMs";
    }
    return "other";
  }
}
