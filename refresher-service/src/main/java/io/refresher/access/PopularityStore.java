package io.refresher.access;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Forward-decay popularity scores of keys (see {@link DecayingRate}), shared by all replicas,
 * with the landmark they are relative to and the last access second folded in. Every method
 * throws {@code CacheUnavailableException} when the store cannot be reached.
 *
 * <p>Scores, landmark and cursor cannot part: a score read against another landmark is off by
 * {@code exp(λ Δ)}, and a score without its cursor would have seconds folded in twice. An
 * implementation keeps them together (the Redis one in one key, which memory pressure evicts
 * whole or not at all), and its writes check the state they were computed against: a write made
 * against a landmark or cursor no longer in force (another sampler moved on, popularity was lost)
 * is refused, and the caller reads the state again.
 */
public interface PopularityStore {

  /**
   * @param landmarkMillis the time scores are relative to
   * @param cursorSecond the last unix second whose reads were added
   * @param consuming the seconds a consumption started on top of this cursor and did not finish
   *     (its sampler failed part-way, or is still at it): the next consumption takes exactly these
   *     seconds, and what was already added of them is not added again
   */
  record State(long landmarkMillis, long cursorSecond, Optional<Seconds> consuming) {

    public State(long landmarkMillis, long cursorSecond) {
      this(landmarkMillis, cursorSecond, Optional.empty());
    }
  }

  /** The unix seconds {@code first..last}, both included. */
  record Seconds(long first, long last) {}

  /** A key and its score. */
  record Scored(String key, double score) {}

  Optional<State> state();

  /** Sets the state if there is none yet; returns the state in force. */
  State initialise(State state);

  /**
   * Folds in the increments of {@code seconds} (weighted against {@code on}'s landmark) on top of
   * {@code on}'s cursor, and moves the cursor to their last second. Idempotent: a key's increment
   * for the same seconds on the same cursor is added once, however often it is sent (a retry after
   * a failure part-way, another sampler consuming the same seconds at the same time); sent again
   * with a larger value (reads reported late), only the difference is added.
   *
   * @return false if nothing more was added because the state is no longer {@code on} (another
   *     sampler consumed these seconds or rescaled, popularity was lost) or another sampler is
   *     consuming other seconds on top of this cursor; the seconds are then not the caller's to
   *     delete
   */
  boolean add(State on, Seconds seconds, Map<String, Double> increments);

  /**
   * Multiplies every score by {@code factor} and moves the landmark, together, unless the state is
   * no longer {@code on} or a consumption is unfinished (its increments are against the landmark in
   * force). Returns whether it did.
   */
  boolean rescale(State on, double factor, long landmarkMillis);

  /** Drops keys scoring below {@code minScore}, then the lowest beyond {@code maxEntries}. */
  void prune(double minScore, int maxEntries);

  /** Keys scoring at least {@code minScore}, highest first, a page at a time. */
  List<Scored> descending(double minScore, int offset, int limit);

  /** The scores of the given keys that have one. */
  Map<String, Double> scores(Collection<String> keys);

  long size();

  /**
   * Raises keys to at least the given scores (against {@code landmarkMillis}), adding missing ones
   * (after Redis lost its data). Raising is idempotent. Returns false, having raised only some or
   * none, when the landmark in force is no longer {@code landmarkMillis}.
   */
  boolean raise(long landmarkMillis, Map<String, Double> scores);
}
