package io.refresher.bench.stampede;

import java.util.List;

/** The strategies the phase compares, in the order of the report. */
enum StrategyKind {
  NEVER_EXPIRES("a", "(a) never expires"),
  CACHE_ASIDE("b", "(b) cache-aside"),
  LOCK("c", "(c) lock (SET NX PX)"),
  XFETCH_1("d1", "(d) XFetch β=1"),
  XFETCH_15("d15", "(d) XFetch β=1.5"),
  CAFFEINE("e", "(e) Caffeine refresh-ahead"),
  REFRESHER("f", "(f) Refresher");

  private final String id;
  private final String label;

  StrategyKind(String id, String label) {
    this.id = id;
    this.label = label;
  }

  /** Short id: part of the strategy's keys and of its label in the database's execution log. */
  String id() {
    return id;
  }

  String label() {
    return label;
  }

  static StrategyKind ofId(String id) {
    for (StrategyKind kind : values()) {
      if (kind.id.equals(id)) {
        return kind;
      }
    }
    throw new IllegalArgumentException("no strategy " + id);
  }

  static List<StrategyKind> all() {
    return List.of(values());
  }
}
