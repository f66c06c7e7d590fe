package io.refresher.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.SplittableRandom;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * XFetch's promise: with {@code r} ms left before expiry, a reader recomputes with probability
 * {@code exp(-r / (delta * beta))}. Measured over many draws from a seeded generator, so the
 * outcome is the same on every run.
 */
class EarlyRecomputeTest {

  private static final int TRIALS = 100_000;
  private static final long NOW = 1_800_000_000_000L;
  private static final long DELTA = 100;

  @ParameterizedTest(name = "beta {0}, {1} ms left: p = {2}")
  @CsvSource({
    "1.0, 100, 0.3679",
    "1.0, 300, 0.0498",
    "1.0, 0, 1.0",
    "1.0, 3000, 0.0",
    "2.0, 100, 0.6065",
  })
  void shouldRecompute_manyTrials_matchesExponentialProbability(double beta, long remaining, double expected) {
    EarlyRecompute early = new EarlyRecompute(beta, new SplittableRandom(20250301));

    int recomputed = 0;
    for (int i = 0; i < TRIALS; i++) {
      if (early.shouldRecompute(NOW, DELTA, NOW + remaining)) {
        recomputed++;
      }
    }

    // The standard deviation of the measured share is at most 0.0016 for 100k trials.
    assertThat(recomputed / (double) TRIALS).isCloseTo(expected, within(0.01));
    assertThat(Math.exp(-remaining / (DELTA * beta))).isCloseTo(expected, within(0.0001));
  }

  @Test
  void shouldRecompute_pastExpiry_alwaysTrue() {
    EarlyRecompute early = new EarlyRecompute(1.0, new SplittableRandom(7));

    for (int i = 0; i < 10_000; i++) {
      assertThat(early.shouldRecompute(NOW, DELTA, NOW - 1)).isTrue();
    }
  }

  @Test
  void shouldRecompute_generatorDrawsZero_neverTakesLogOfZero() {
    // nextDouble() == 0 is the draw that would give ln(0) = -infinity without the 1 - u flip.
    RandomGenerator alwaysZero = () -> 0L;
    EarlyRecompute early = new EarlyRecompute(1.0, alwaysZero);

    assertThat(alwaysZero.nextDouble()).isZero();
    assertThat(early.shouldRecompute(NOW, DELTA, NOW + 1)).isFalse();
    assertThat(early.shouldRecompute(NOW, DELTA, NOW)).isTrue();
  }

  @Test
  void shouldRecompute_defaultRandomness_isUsableFromManyThreads() throws InterruptedException {
    EarlyRecompute early = new EarlyRecompute();
    Thread[] threads = new Thread[4];
    int[] recomputed = new int[threads.length];
    for (int t = 0; t < threads.length; t++) {
      int index = t;
      threads[t] =
          new Thread(
              () -> {
                for (int i = 0; i < TRIALS / 4; i++) {
                  if (early.shouldRecompute(NOW, DELTA, NOW + 100)) {
                    recomputed[index]++;
                  }
                }
              });
      threads[t].start();
    }
    for (Thread thread : threads) {
      thread.join();
    }

    int total = java.util.Arrays.stream(recomputed).sum();
    assertThat(total / (double) TRIALS).isCloseTo(Math.exp(-1), within(0.02));
  }

  @Test
  void constructor_betaNotPositive_isRefused() {
    assertThatThrownBy(() -> new EarlyRecompute(0)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new EarlyRecompute(-1)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new EarlyRecompute(Double.NaN)).isInstanceOf(IllegalArgumentException.class);
  }
}
