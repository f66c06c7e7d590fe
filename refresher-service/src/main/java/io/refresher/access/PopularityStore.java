package io.refresher.access;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Forward-decay popularity scores of keys (see {@link DecayingRate}), shared by all replicas,
 * with the landmark they are relative to and the last access second folded in. Every method
 * throws {@code CacheUnavailableException} when the store cannot be reached.
 */
public interface PopularityStore {

  /**
   * @param landmarkMillis the time scores are relative to
   * @param cursorSecond the last unix second whose reads were added
   */
  record State(long landmarkMillis, long cursorSecond) {}

  /** A key and its score. */
  record Scored(String key, double score) {}

  Optional<State> state();

  /** Sets the state if there is none yet; returns the state in force. */
  State initialise(State state);

  /** Adds score increments and moves the cursor, together. */
  void add(Map<String, Double> increments, long cursorSecond);

  /** Multiplies every score by {@code factor} and moves the landmark, together. */
  void rescale(double factor, long landmarkMillis);

  /** Drops keys scoring below {@code minScore}, then the lowest beyond {@code maxEntries}. */
  void prune(double minScore, int maxEntries);

  /** Keys scoring at least {@code minScore}, highest first, a page at a time. */
  List<Scored> descending(double minScore, int offset, int limit);

  /** The scores of the given keys that have one. */
  Map<String, Double> scores(Collection<String> keys);

  long size();

  /** Raises keys to at least the given scores, adding missing ones (after Redis lost its data). */
  void raise(Map<String, Double> scores);
}
