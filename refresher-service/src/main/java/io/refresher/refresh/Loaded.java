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
   */
  record Value(String value, String validator) implements Loaded {}

  /**
   * The source says the stored value is still current (HTTP {@code 304}, or an unchanged version):
   * its TTL is extended without rewriting it.
   */
  record Unchanged() implements Loaded {}

  static Loaded value(String value) {
    return new Value(value, null);
  }
}
