package io.refresher.client.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Collection;
import org.junit.jupiter.api.Test;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * Every driver's counting benchmark once, for 300 ms, in this JVM: that it runs and counts, not
 * how fast (figures come from {@code java -jar target/refresher-client-bench.jar}).
 */
class DriverCountingSmokeIT {

  @Test
  void everyDriversBenchmark_runs() throws Exception {
    Collection<RunResult> results =
        new Runner(
                new OptionsBuilder()
                    .include(DriverCountingBenchmark.class.getName() + "\\.record$")
                    .forks(0)
                    .warmupIterations(0)
                    .measurementIterations(1)
                    .measurementTime(TimeValue.milliseconds(300))
                    .shouldFailOnError(true)
                    .build())
            .run();

    assertThat(results).extracting(result -> result.getParams().getParam("driver"))
        .containsExactlyInAnyOrder("redisson", "lettuce", "jedis");
    for (RunResult result : results) {
      assertThat(result.getPrimaryResult().getScore()).as(result.getParams().getParam("driver")).isPositive().isFinite();
    }
  }
}
