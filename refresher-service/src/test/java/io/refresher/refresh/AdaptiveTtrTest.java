package io.refresher.refresh;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class AdaptiveTtrTest {

  private static final Duration LONG_TTL = Duration.ofHours(1);
  private static final Duration RETRY_BASE = Duration.ofMillis(200);
  private static final TtrSettings SETTINGS =
      new TtrSettings(Duration.ofSeconds(5), Duration.ofMillis(500), Duration.ofSeconds(60), 0.95, 20, 0.5);

  private final AdaptiveTtr ttrs = new AdaptiveTtr(SETTINGS, 0.5, RETRY_BASE);

  @Test
  void decide_noHistory_usesInitialTtr() {
    TtrDecision decision = ttrs.decide(LONG_TTL, List.of(), Duration.ofMillis(30), Double.NaN, 1);

    assertThat(decision.ttr()).isEqualTo(Duration.ofSeconds(5));
    assertThat(decision.samples()).isZero();
    assertThat(decision.compute()).isNull();
    assertThat(decision.limitedBy()).isNull();
  }

  @Test
  void decide_history_isLagPlusComputePlusRoomForOneRetry() {
    // p95 of 1..20 (x100 ms) by nearest rank is the 19th sample: 1,900 ms.
    List<Long> recent = new ArrayList<>();
    for (long i = 1; i <= 20; i++) {
      recent.add(i * 100);
    }

    TtrDecision decision = ttrs.decide(LONG_TTL, recent, Duration.ofMillis(40), Double.NaN, 1);

    assertThat(decision.compute()).isEqualTo(Duration.ofMillis(1900));
    assertThat(decision.retryRoom()).isEqualTo(Duration.ofMillis(200 + 1900));
    assertThat(decision.ttr()).isEqualTo(Duration.ofMillis(40 + 1900 + 200 + 1900));
    assertThat(decision.heatFactor()).isEqualTo(1.0);
  }

  @Test
  void decide_slowerSource_growsTtr_andFasterShrinksIt() {
    Duration fast = ttrs.decide(LONG_TTL, List.of(100L, 100L, 100L), Duration.ZERO, Double.NaN, 1).ttr();
    Duration slow = ttrs.decide(LONG_TTL, List.of(100L, 100L, 3000L), Duration.ZERO, Double.NaN, 1).ttr();
    Duration fastAgain = ttrs.decide(LONG_TTL, List.of(120L, 90L, 110L), Duration.ZERO, Double.NaN, 1).ttr();

    assertThat(slow).isGreaterThan(fast);
    assertThat(fastAgain).isLessThan(slow);
  }

  @Test
  void decide_moreLag_growsTtr() {
    Duration calm = ttrs.decide(LONG_TTL, List.of(500L), Duration.ZERO, Double.NaN, 1).ttr();
    Duration late = ttrs.decide(LONG_TTL, List.of(500L), Duration.ofMillis(800), Double.NaN, 1).ttr();

    assertThat(late.minus(calm)).isEqualTo(Duration.ofMillis(800));
  }

  @Test
  void decide_hotterKeys_getMoreMargin_upToHeatMargin() {
    List<Long> recent = List.of(1000L);
    double threshold = 10;

    TtrDecision atThreshold = ttrs.decide(LONG_TTL, recent, Duration.ZERO, 10, threshold);
    TtrDecision tenTimes = ttrs.decide(LONG_TTL, recent, Duration.ZERO, 100, threshold);
    TtrDecision hundredTimes = ttrs.decide(LONG_TTL, recent, Duration.ZERO, 1000, threshold);
    TtrDecision millionTimes = ttrs.decide(LONG_TTL, recent, Duration.ZERO, 1e7, threshold);

    assertThat(atThreshold.heatFactor()).isEqualTo(1.0);
    assertThat(tenTimes.heatFactor()).isEqualTo(1.25);
    assertThat(hundredTimes.heatFactor()).isEqualTo(1.5);
    assertThat(millionTimes.heatFactor()).isEqualTo(1.5);
    assertThat(hundredTimes.ttr()).isEqualTo(Duration.ofMillis(Math.round((1000 + 200 + 1000) * 1.5)));
  }

  @Test
  void decide_belowMin_isRaisedToMin() {
    TtrDecision decision = ttrs.decide(LONG_TTL, List.of(1L), Duration.ZERO, Double.NaN, 1);

    assertThat(decision.unclamped()).isEqualTo(Duration.ofMillis(1 + 200 + 1));
    assertThat(decision.ttr()).isEqualTo(Duration.ofMillis(500));
    assertThat(decision.limitedBy()).isEqualTo("min");
  }

  @Test
  void decide_aboveMax_isCappedAtMax() {
    TtrDecision decision = ttrs.decide(LONG_TTL, List.of(40_000L), Duration.ZERO, Double.NaN, 1);

    assertThat(decision.ttr()).isEqualTo(Duration.ofSeconds(60));
    assertThat(decision.limitedBy()).isEqualTo("max");
  }

  @Test
  void decide_shortTtl_isCappedAtMaxTtrFractionOfTtl_evenBelowMin() {
    TtrDecision slowShort = ttrs.decide(Duration.ofSeconds(4), List.of(5000L), Duration.ZERO, Double.NaN, 1);
    TtrDecision tiny = ttrs.decide(Duration.ofMillis(600), List.of(1L), Duration.ZERO, Double.NaN, 1);

    assertThat(slowShort.ttr()).isEqualTo(Duration.ofSeconds(2));
    assertThat(slowShort.limitedBy()).isEqualTo("ttl");
    assertThat(tiny.ttr()).isEqualTo(Duration.ofMillis(300));
    assertThat(tiny.lowerBound()).isEqualTo(Duration.ofMillis(300));
  }

  @Test
  void fixed_anyHistory_isAlwaysTheFixedTtr() {
    AdaptiveTtr fixed = new AdaptiveTtr(TtrSettings.fixed(Duration.ofSeconds(5)), 0.5, RETRY_BASE);

    assertThat(fixed.decide(LONG_TTL, List.of(10L), Duration.ZERO, 1e6, 1).ttr()).isEqualTo(Duration.ofSeconds(5));
    assertThat(fixed.decide(LONG_TTL, List.of(50_000L), Duration.ofSeconds(9), 1e6, 1).ttr())
        .isEqualTo(Duration.ofSeconds(5));
    assertThat(fixed.decide(Duration.ofSeconds(4), List.of(), Duration.ZERO, 1e6, 1).ttr())
        .isEqualTo(Duration.ofSeconds(2));
  }

  @Test
  void percentile_nearestRank() {
    assertThat(AdaptiveTtr.percentile(List.of(5L), 0.95)).isEqualTo(5);
    assertThat(AdaptiveTtr.percentile(List.of(3L, 1L, 2L), 0.5)).isEqualTo(2);
    assertThat(AdaptiveTtr.percentile(List.of(10L, 20L, 30L, 40L, 1000L), 0.95)).isEqualTo(1000);
    assertThat(AdaptiveTtr.percentile(List.of(10L, 20L, 30L, 40L, 1000L), 0.8)).isEqualTo(40);
  }

  @Test
  void lagTracker_p99_ofRecentWindow() {
    LagTracker lag = new LagTracker();
    assertThat(lag.p99()).isEqualTo(Duration.ZERO);
    for (int i = 1; i <= 100; i++) {
      lag.record(Duration.ofMillis(i));
    }
    assertThat(lag.p99()).isEqualTo(Duration.ofMillis(99));
  }
}
