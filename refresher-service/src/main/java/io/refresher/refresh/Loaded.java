package io.refresher.refresh;

/**
 * What a source answered: a value, or that the value it computed last time still holds.
 *
 * <p>A validator is the source's cheap answer to "has it changed?": an HTTP response's {@code
 * ETag} or {@code Last-Modified}, or the result of a SQL source's version query. It is stored in
 * the key's metadata with the value it was computed with, and handed back on the next refresh.
 */
public sealed interface Loaded {

  /**
   * A value computed now.
   *
   * @param validator what to hand back on the next refresh to ask whether it changed; null when
   *     the source has none
   * @param ttl the TTL the value carries itself (a TTL column, {@code Cache-Control}), already
   *     bounded by its source's {@code valueTtl}; null for its registration's
   */
  record Value(String value, String validator, java.time.Duration ttl) implements Loaded {
    public Value(String value, String validator) {
      this(value, validator, null);
    }
  }

  /**
   * The source says the stored value is still current (HTTP {@code 304}, or an unchanged version):
   * its TTL is extended without rewriting it.
   *
   * @param ttl the TTL the answer carries (an HTTP {@code 304}'s {@code Cache-Control}), bounded; null
   *     for the registration's
   */
  record Unchanged(java.time.Duration ttl) implements Loaded {
    public Unchanged() {
      this(null);
    }
  }

  static Loaded value(String value) {
    return new Value(value, null);
  }
}
