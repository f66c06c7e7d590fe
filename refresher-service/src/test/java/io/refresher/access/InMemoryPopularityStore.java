package io.refresher.access;

import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Popularity scores in a map: pages sorted by score descending, ties by key. */
final class InMemoryPopularityStore implements PopularityStore {

  private static final Comparator<Scored> HIGHEST_FIRST =
      Comparator.comparingDouble(Scored::score).reversed().thenComparing(Scored::key);

  private final Map<String, Double> scores = new HashMap<>();
  private State state;

  /** Sets the state directly (a store that already holds popularity). */
  void setState(State state) {
    this.state = state;
  }

  /** Sets a key's score directly. */
  void put(String key, double score) {
    scores.put(key, score);
  }

  /** The key's score, 0 when it has none. */
  double score(String key) {
    return scores.getOrDefault(key, 0.0);
  }

  @Override
  public Optional<State> state() {
    return Optional.ofNullable(state);
  }

  @Override
  public State initialise(State initial) {
    if (state == null) {
      state = initial;
    }
    return state;
  }

  @Override
  public void add(Map<String, Double> increments, long cursorSecond) {
    if (state == null) {
      throw new IllegalStateException("add before initialise");
    }
    increments.forEach((key, increment) -> scores.merge(key, increment, Double::sum));
    state = new State(state.landmarkMillis(), cursorSecond);
  }

  @Override
  public void rescale(double factor, long landmarkMillis) {
    scores.replaceAll((key, score) -> score * factor);
    state = new State(landmarkMillis, state.cursorSecond());
  }

  @Override
  public void prune(double minScore, int maxEntries) {
    scores.values().removeIf(score -> score < minScore);
    List<Scored> sorted = sorted();
    for (Scored dropped : sorted.subList(Math.min(maxEntries, sorted.size()), sorted.size())) {
      scores.remove(dropped.key());
    }
  }

  @Override
  public List<Scored> descending(double minScore, int offset, int limit) {
    return sorted().stream().filter(scored -> scored.score() >= minScore).skip(offset).limit(limit).toList();
  }

  @Override
  public Map<String, Double> scores(Collection<String> keys) {
    Map<String, Double> found = new HashMap<>();
    for (String key : keys) {
      Double score = scores.get(key);
      if (score != null) {
        found.put(key, score);
      }
    }
    return found;
  }

  @Override
  public long size() {
    return scores.size();
  }

  @Override
  public void raise(Map<String, Double> raised) {
    raised.forEach((key, score) -> scores.merge(key, score, Math::max));
  }

  private List<Scored> sorted() {
    return scores.entrySet().stream()
        .map(entry -> new Scored(entry.getKey(), entry.getValue()))
        .sorted(HIGHEST_FIRST)
        .toList();
  }
}
