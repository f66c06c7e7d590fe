package io.refresher.bench.jmh;

import io.refresher.refresh.AdaptiveTtr;
import io.refresher.refresh.TtrDecision;
import io.refresher.refresh.TtrSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The TTR decision of one refresh ({@link AdaptiveTtr#decide}), with the shipped config.yml's
 * settings (initial 5 s, min 1 s, max 5 m, p95 of 20 durations, heat margin 0.5, maxTtrFraction
 * 0.5, retryBase 500 ms) and a key of TTL 60 s read 250 times a second (hot threshold 1/s).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class TtrBenchmark {

  /** A key's compute history: 0 (its first refresh: the initial TTR) or the full 20. */
  @State(Scope.Benchmark)
  public static class Inputs {
    @Param({"0", "20"})
    public int samples;

    AdaptiveTtr ttr =
        new AdaptiveTtr(
            new TtrSettings(Duration.ofSeconds(5), Duration.ofSeconds(1), Duration.ofMinutes(5), 0.95, 20, 0.5),
            0.5,
            Duration.ofMillis(500));
    Duration ttl = Duration.ofSeconds(60);
    /** As the write's reply gives them: an ArrayList of boxed ms, oldest first. */
    List<Long> recent;
    Duration lag = Duration.ofMillis(8);
    double rate = 250.0;
    double hotThreshold = 1.0;

    @Setup(Level.Trial)
    public void history() {
      SplittableRandom random = new SplittableRandom(11);
      recent = new ArrayList<>();
      for (int i = 0; i < samples; i++) {
        recent.add(30L + random.nextInt(90));
      }
    }
  }

  @Benchmark
  public TtrDecision decide(Inputs in) {
    return in.ttr.decide(in.ttl, in.recent, in.lag, in.rate, in.hotThreshold);
  }
}
