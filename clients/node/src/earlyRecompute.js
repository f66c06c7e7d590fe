/**
 * Probabilistic early recomputation, "XFetch" (Vattani, Chierichetti, Lowenstein: Optimal
 * Probabilistic Cache Stampede Prevention, VLDB 2015): recompute when
 * now - delta * beta * ln(rand()) >= expiresAt, rand() uniform in (0, 1]. With r = expiresAt - now
 * left that happens with probability exp(-r / (delta * beta)): certain at expiry, 37 % one
 * delta * beta before, 5 % three before; so usually one reader recomputes shortly before expiry.
 */
export const DEFAULT_BETA = 1.0;

export class EarlyRecompute {
  /**
   * @param {number} [beta] > 0; above 1 recomputes earlier, below 1 later
   * @param {() => number} [random] uniform in [0, 1) like Math.random (a seeded one makes tests repeatable)
   */
  constructor(beta = DEFAULT_BETA, random = Math.random) {
    this.beta = checkedBeta(beta);
    if (typeof random !== 'function') {
      throw new TypeError('random must be a function returning a number in [0, 1)');
    }
    this.random = random;
  }

  /** Whether a reader at nowMillis recomputes a value that took deltaMillis and expires at expiresAtMillis. */
  shouldRecompute(nowMillis, deltaMillis, expiresAtMillis) {
    // 1 - [0, 1) is (0, 1]: never ln(0).
    return EarlyRecompute.decide(nowMillis, deltaMillis, expiresAtMillis, this.beta, 1 - this.random());
  }

  /**
   * The decision for one draw `uniform` in (0, 1]: exactly what every client computes
   * (protocol/vectors/xfetch.json). Same operation order as Java's, in doubles.
   */
  static decide(nowMillis, deltaMillis, expiresAtMillis, beta, uniform) {
    return nowMillis - deltaMillis * beta * Math.log(uniform) >= expiresAtMillis;
  }
}

export function checkedBeta(beta) {
  if (typeof beta !== 'number' || !(beta > 0) || !Number.isFinite(beta)) {
    throw new RangeError(`beta must be a positive number, was ${beta}`);
  }
  return beta;
}
