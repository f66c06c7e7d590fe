package io.refresher.refresh;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The lines of a burst add up to its true count (issue 18, point 4: a flood of 100,001 drops was
 * logged as "1 changes dropped", and nothing after).
 */
class BurstLogTest {

  private final ManualTime time = new ManualTime(Instant.parse("2025-03-01T12:00:00Z"));
  private final List<long[]> lines = new ArrayList<>();
  private final BurstLog log = new BurstLog((count, millis) -> lines.add(new long[] {count, millis}), Duration.ofSeconds(10), time);

  @Test
  void add_burstOverSeveralIntervals_linesAddUpToTheTrueCount_atMostOnePerInterval() {
    for (int i = 0; i < 100_001; i++) {
      log.add(1, 2);
      if (i % 1000 == 0) {
        time.advance(Duration.ofMillis(100));
      }
    }
    log.flush();
    assertThat(lines).as("one line at the start, one 10 s later; the rest waits for the next line due").hasSize(2);
    time.advance(Duration.ofSeconds(10));
    log.flush();

    assertThat(lines.stream().mapToLong(line -> line[0]).sum()).isEqualTo(100_001);
    assertThat(lines.stream().mapToLong(line -> line[1]).sum()).isEqualTo(200_002);
    assertThat(lines.get(0)[0]).as("the first line at once").isEqualTo(1);
  }

  @Test
  void flush_nothingSinceTheLastLine_writesNothing() {
    log.add(5, 0);
    time.advance(Duration.ofMinutes(1));
    log.flush();
    log.flush();

    assertThat(lines).hasSize(1);
    assertThat(lines.get(0)[0]).isEqualTo(5);
  }
}
