package io.refresher.access;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.withinPercentage;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.junit.jupiter.api.Test;

class DecayingRateTest {

  private static final Duration HALF_LIFE = Duration.ofMinutes(1);
  private static final long H = HALF_LIFE.toMillis();
  private static final long LANDMARK = Instant.parse("2024-05-01T12:00:00Z").toEpochMilli();
  /** Tolerance of exact identities, in percent: only rounding error (1e-9 relative) allowed. */
  private static final double EXACT = 1e-7;

  private final DecayingRate decay = new DecayingRate(HALF_LIFE);

  /** Adds one second's worth of {@code readsPerSecond} at the end of each of {@code seconds} seconds. */
  private double steadyReads(double score, double readsPerSecond, long fromMillis, int seconds) {
    for (int second = 1; second <= seconds; second++) {
      score += readsPerSecond * decay.weight(fromMillis + second * 1000L, LANDMARK);
    }
    return score;
  }

  @Test
  void constructor_zeroOrNegativeHalfLife_isRejected() {
    assertThatThrownBy(() -> new DecayingRate(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new DecayingRate(Duration.ofSeconds(-1))).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void weight_doublesEveryHalfLifeAfterTheLandmark() {
    assertThat(decay.weight(LANDMARK, LANDMARK)).isEqualTo(1.0);
    assertThat(decay.weight(LANDMARK + H, LANDMARK)).isCloseTo(2.0, withinPercentage(EXACT));
    assertThat(decay.weight(LANDMARK + 3 * H, LANDMARK)).isCloseTo(8.0, withinPercentage(EXACT));
    assertThat(decay.weight(LANDMARK - H, LANDMARK)).isCloseTo(0.5, withinPercentage(EXACT));
  }

  @Test
  void rate_steadyReadsForManyHalfLives_convergesToTheReadRate() {
    double readsPerSecond = 40;
    long now = LANDMARK + 20 * H;

    double score = steadyReads(0, readsPerSecond, LANDMARK, (int) (20 * H / 1000));

    // Reads are weighted at the end of their second: off by about λ/2 per second, 0.6% here.
    assertThat(decay.rate(score, now, LANDMARK)).isCloseTo(readsPerSecond, withinPercentage(1));
  }

  @Test
  void rate_steadyReadsFromNothingForOneHalfLife_reachHalfTheReadRate() {
    double readsPerSecond = 40;

    double score = steadyReads(0, readsPerSecond, LANDMARK, (int) (H / 1000));

    assertThat(decay.rate(score, LANDMARK + H, LANDMARK)).isCloseTo(readsPerSecond / 2, withinPercentage(1));
  }

  @Test
  void rate_readsStop_halvesEveryHalfLife() {
    long stoppedAt = LANDMARK + 20 * H;
    double score = steadyReads(0, 40, LANDMARK, (int) (20 * H / 1000));
    double atStop = decay.rate(score, stoppedAt, LANDMARK);

    assertThat(decay.rate(score, stoppedAt + H, LANDMARK)).isCloseTo(atStop / 2, withinPercentage(EXACT));
    assertThat(decay.rate(score, stoppedAt + 2 * H, LANDMARK)).isCloseTo(atStop / 4, withinPercentage(EXACT));
    assertThat(decay.rate(score, stoppedAt + 10 * H, LANDMARK)).isCloseTo(atStop / 1024, withinPercentage(EXACT));
  }

  @Test
  void score_thenRate_roundTripsTheRate() {
    for (long now : new long[] {LANDMARK, LANDMARK + 1234, LANDMARK + 40 * H, LANDMARK - 3 * H}) {
      for (double rate : new double[] {0.01, 1, 12.5, 1e6}) {
        double score = decay.score(rate, now, LANDMARK);

        assertThat(decay.rate(score, now, LANDMARK)).as("rate %s at %s", rate, now).isCloseTo(rate, withinPercentage(EXACT));
      }
    }
  }

  @Test
  void rate_thenScore_roundTripsTheScore() {
    long now = LANDMARK + 7 * H + 321;
    for (double score : new double[] {1e-3, 1, 987.6, 1e12}) {
      double rate = decay.rate(score, now, LANDMARK);

      assertThat(decay.score(rate, now, LANDMARK)).isCloseTo(score, withinPercentage(EXACT));
    }
  }

  @Test
  void needsRescale_onlyOnceTheLandmarkFactorPassesE30() {
    // λ (now - L) > 30 from 30 / ln 2 = 43.28 half-lives on
    assertThat(decay.needsRescale(LANDMARK, LANDMARK)).isFalse();
    assertThat(decay.needsRescale(LANDMARK + 43 * H, LANDMARK)).isFalse();
    assertThat(decay.needsRescale(LANDMARK + 44 * H, LANDMARK)).isTrue();
  }

  @Test
  void rescaleFactor_appliedToScoresWithTheNewLandmark_keepsEveryRate() {
    long now = LANDMARK + 50 * H;
    assertThat(decay.needsRescale(now, LANDMARK)).isTrue();
    double[] scores = {
      decay.score(0.5, now, LANDMARK), decay.score(10, now, LANDMARK), decay.score(4000, now, LANDMARK)
    };
    double factor = decay.rescaleFactor(now, LANDMARK);

    for (double score : scores) {
      double rescaled = score * factor;
      for (long at : new long[] {now, now + 1500, now + 3 * H}) {
        assertThat(decay.rate(rescaled, at, now))
            .isCloseTo(decay.rate(score, at, LANDMARK), withinPercentage(EXACT));
      }
    }
    assertThat(decay.needsRescale(now, now)).isFalse();
    // back to the size a score has at its landmark
    assertThat(scores[1] * factor).isCloseTo(decay.score(10, now, now), withinPercentage(EXACT));
  }

  @Test
  void rate_orderOfScores_isOrderOfRates() {
    List<Double> scores = new ArrayList<>(List.of(3.0, 1e-4, 250.0, 17.5, 0.9, 1e9));
    scores.sort(Comparator.naturalOrder());

    for (long now : new long[] {LANDMARK, LANDMARK + 5 * H, LANDMARK + 30 * H}) {
      List<Double> rates = scores.stream().map(score -> decay.rate(score, now, LANDMARK)).toList();

      assertThat(rates).isSortedAccordingTo(Comparator.naturalOrder()).doesNotHaveDuplicates();
    }
  }

  @Test
  void score_ofThreshold_separatesRatesAboveFromRatesBelow() {
    long now = LANDMARK + 12 * H + 777;
    double threshold = 10;
    double minScore = decay.score(threshold, now, LANDMARK);

    assertThat(decay.rate(minScore * 1.001, now, LANDMARK)).isGreaterThan(threshold);
    assertThat(decay.rate(minScore * 0.999, now, LANDMARK)).isLessThan(threshold);
  }
}
