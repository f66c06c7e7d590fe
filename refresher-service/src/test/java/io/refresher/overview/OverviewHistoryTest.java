package io.refresher.overview;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.refresher.metrics.RefreshMetrics.SourceTotals;
import java.time.Instant;
import java.time.InstantSource;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class OverviewHistoryTest {

  private final AtomicReference<Instant> now = new AtomicReference<>(Instant.parse("2026-12-05T10:00:00Z"));
  private final Map<String, SourceTotals> totals = new HashMap<>();
  private boolean redisUp = true;

  private final OverviewHistory.Readings readings =
      new OverviewHistory.Readings() {
        @Override
        public Map<String, SourceTotals> totals() {
          return Map.copyOf(totals);
        }

        @Override
        public double lagP99Millis() {
          return 12.5;
        }

        @Override
        public int hotKeys() {
          return 42;
        }

        @Override
        public boolean redisUp() {
          return redisUp;
        }

        @Override
        public boolean postgresUp() {
          return true;
        }
      };

  private final InstantSource clock = () -> now.get();

  @Test
  void firstRunOnlyRecords_laterRunsGiveRatesOverTheInterval() {
    OverviewHistory history = new OverviewHistory(readings, clock, 10);
    totals.put("a", new SourceTotals(100, 20, 0, 5, null));
    history.run();
    assertThat(history.samples()).isEmpty();

    now.set(now.get().plusSeconds(5));
    totals.put("a", new SourceTotals(140, 30, 3, 15, Instant.EPOCH));
    totals.put("b", new SourceTotals(10, 0, 0, 0, null)); // a source seen for the first time
    redisUp = false;
    history.run();

    assertThat(history.samples()).singleElement().satisfies(sample -> {
      assertThat(sample.at()).isEqualTo(now.get());
      assertThat(sample.refreshesPerSecond()).as("(40 + 10 + 10) / 5 s").isEqualTo(12.0);
      assertThat(sample.failuresPerSecond()).as("10 / 5 s").isEqualTo(2.0);
      assertThat(sample.failuresBySource()).containsExactly(Map.entry("a", 10L));
      assertThat(sample.lagP99Millis()).isEqualTo(12.5);
      assertThat(sample.hotKeys()).isEqualTo(42);
      assertThat(sample.redisUp()).isFalse();
      assertThat(sample.postgresUp()).isTrue();
    });
  }

  @Test
  void keepsTheLatestSamples_oldestFirst() {
    OverviewHistory history = new OverviewHistory(readings, clock, 3);
    for (int i = 0; i <= 5; i++) {
      history.run();
      now.set(now.get().plusSeconds(5));
    }
    assertThat(history.samples()).hasSize(3);
    assertThat(history.samples().get(0).at()).isEqualTo(Instant.parse("2026-12-05T10:00:15Z"));
    assertThat(history.samples().get(2).at()).isEqualTo(Instant.parse("2026-12-05T10:00:25Z"));
    assertThat(history.samples()).allSatisfy(sample -> assertThat(sample.refreshesPerSecond()).isZero());
  }

  @Test
  void refusesAnEmptyHistory() {
    assertThatThrownBy(() -> new OverviewHistory(readings, clock, 0)).isInstanceOf(IllegalArgumentException.class);
  }
}
