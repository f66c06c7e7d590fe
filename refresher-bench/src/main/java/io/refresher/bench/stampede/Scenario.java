package io.refresher.bench.stampede;

/** How the TTLs of a run's values are chosen. */
enum Scenario {
  /** Every value gets exactly the TTL, and every key is first written at the same moment: all hot keys expire together. */
  SYNCHRONISED("synchronised", "synchronised expiry", 0.0),
  /** Every write draws its TTL from TTL ± 10 %, so the hot keys' expiries spread and keep spreading. */
  JITTERED("jittered", "jittered TTL (± 10 %)", 0.1);

  private final String id;
  private final String label;
  private final double jitter;

  Scenario(String id, String label, double jitter) {
    this.id = id;
    this.label = label;
    this.jitter = jitter;
  }

  String id() {
    return id;
  }

  String label() {
    return label;
  }

  /** The relative half-width of the TTL's spread (0.1: TTL × [0.9, 1.1]). */
  double jitter() {
    return jitter;
  }
}
