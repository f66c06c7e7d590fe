package io.refresher.client;

import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import java.util.random.RandomGenerator;

/**
 * Probabilistic early recomputation, "XFetch" (Vattani, Chierichetti, Lowenstein: Optimal
 * Probabilistic Cache Stampede Prevention, VLDB 2015): a reader recomputes a value before it
 * expires with a probability that grows as expiry nears, so that usually exactly one reader
 * recomputes, shortly before expiry, and nobody waits.
 *
 * <p>Recompute when {@code now - delta * beta * ln(rand()) >= expiry}, {@code rand()} uniform in
 * (0, 1]. With {@code r = expiry - now} left, that happens with probability {@code exp(-r / (delta
 * * beta))}: certain at expiry, 37 % one {@code delta * beta} before, 5 % three before.
 */
public final class EarlyRecompute {

  public static final double DEFAULT_BETA = 1.0;

  private final double beta;
  /** Null: each thread uses its own {@link ThreadLocalRandom}, so there is nothing to share. */
  private final RandomGenerator random;

  /** The given beta (> 0; above 1 favours earlier recomputation) and source of randomness. */
  public EarlyRecompute(double beta, RandomGenerator random) {
    this.beta = checkedBeta(beta);
    this.random = Objects.requireNonNull(random, "random");
  }

  /** The given beta, with thread-local randomness. */
  public EarlyRecompute(double beta) {
    this.beta = checkedBeta(beta);
    this.random = null;
  }

  /** Beta 1 (the paper's recommendation), thread-local randomness. */
  public EarlyRecompute() {
    this(DEFAULT_BETA);
  }

  /**
   * Whether a reader at {@code nowMillis} should recompute a value that took {@code deltaMillis}
   * to compute and expires at {@code expiresAtMillis}.
   */
  public boolean shouldRecompute(long nowMillis, long deltaMillis, long expiresAtMillis) {
    // 1 - [0, 1) is (0, 1]: never ln(0).
    return decide(nowMillis, deltaMillis, expiresAtMillis, beta, 1.0 - nextDouble());
  }

  /**
   * The decision for one draw {@code uniform} in (0, 1]: {@code now - delta * beta * ln(uniform)
   * >= expiresAt}. Every client computes exactly this (protocol/vectors/xfetch.json).
   */
  public static boolean decide(long nowMillis, long deltaMillis, long expiresAtMillis, double beta, double uniform) {
    return nowMillis - deltaMillis * beta * Math.log(uniform) >= expiresAtMillis;
  }

  public double beta() {
    return beta;
  }

  static double checkedBeta(double beta) {
    if (!(beta > 0) || Double.isInfinite(beta)) {
      throw new IllegalArgumentException("beta must be a positive number, was " + beta);
    }
    return beta;
  }

  private double nextDouble() {
    if (random == null) {
      return ThreadLocalRandom.current().nextDouble();
    }
    // A given generator may not be thread-safe (SplittableRandom, seeded ones in tests).
    synchronized (random) {
      return random.nextDouble();
    }
  }
}
