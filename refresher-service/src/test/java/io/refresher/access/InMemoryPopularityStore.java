package io.refresher.access;

import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Popularity scores in a map: pages sorted by score descending, ties by key. Writes check the state
 * they were computed on and consumptions are recorded per key, as the Redis store does, so a
 * consumption sent again adds nothing twice.
 */
final class InMemoryPopularityStore implements PopularityStore {

  private static final Comparator<Scored> HIGHEST_FIRST =
      Comparator.comparingDouble(Scored::score).reversed().thenComparing(Scored::key);

  /** A consumption under way: the cursor it builds on, its seconds, and what it added per key. */
  private record Consuming(long after, Seconds seconds, Map<String, Double> added) {}

  private final Map<String, Double> scores = new HashMap<>();
  private long landmark;
  private long cursor;
  private boolean initialised;
  private Consuming consuming;
  private int failAfterKeys = -1;
  private Runnable beforeNextRaise;

  /** Sets the state directly (a store that already holds popularity); its unfinished consumption added nothing yet. */
  void setState(State state) {
    landmark = state.landmarkMillis();
    cursor = state.cursorSecond();
    initialised = true;
    consuming = state.consuming().map(seconds -> new Consuming(cursor, seconds, new HashMap<>())).orElse(null);
  }

  /** The next {@link #add} fails (as Redis would, unreachable) once it has added this many keys. */
  void failAfterAdding(int keys) {
    failAfterKeys = keys;
  }

  /** Runs {@code action} when {@link #raise} is next called, before it checks the landmark. */
  void beforeNextRaise(Runnable action) {
    beforeNextRaise = action;
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
    if (!initialised) {
      return Optional.empty();
    }
    return Optional.of(
        new State(
            landmark,
            cursor,
            consuming != null && consuming.after() == cursor ? Optional.of(consuming.seconds()) : Optional.empty()));
  }

  @Override
  public State initialise(State initial) {
    if (!initialised) {
      setState(new State(initial.landmarkMillis(), initial.cursorSecond()));
    }
    return state().orElseThrow();
  }

  @Override
  public boolean add(State on, Seconds seconds, Map<String, Double> increments) {
    if (!initialised || on.landmarkMillis() != landmark || on.cursorSecond() != cursor) {
      return false;
    }
    if (consuming != null && consuming.after() != cursor) {
      consuming = null;
    }
    if (consuming != null && !consuming.seconds().equals(seconds)) {
      return false;
    }
    if (consuming == null && on.consuming().isPresent()) {
      return false;
    }
    if (consuming == null) {
      consuming = new Consuming(cursor, seconds, new HashMap<>());
    }
    int added = 0;
    for (Map.Entry<String, Double> increment : increments.entrySet()) {
      if (added++ == failAfterKeys) {
        failAfterKeys = -1;
        throw new IllegalStateException("injected: the store failed part-way through the increments");
      }
      double before = consuming.added().getOrDefault(increment.getKey(), 0.0);
      if (increment.getValue() > before) {
        scores.merge(increment.getKey(), increment.getValue() - before, Double::sum);
        consuming.added().put(increment.getKey(), increment.getValue());
      }
    }
    cursor = seconds.last();
    consuming = null;
    return true;
  }

  @Override
  public boolean rescale(State on, double factor, long landmarkMillis) {
    if (!initialised || on.landmarkMillis() != landmark || (consuming != null && consuming.after() == cursor)) {
      return false;
    }
    scores.replaceAll((key, score) -> score * factor);
    landmark = landmarkMillis;
    return true;
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
  public boolean raise(long landmarkMillis, Map<String, Double> raised) {
    if (beforeNextRaise != null) {
      Runnable action = beforeNextRaise;
      beforeNextRaise = null;
      action.run();
    }
    if (!initialised || landmarkMillis != landmark) {
      return false;
    }
    raised.forEach((key, score) -> scores.merge(key, score, Math::max));
    return true;
  }

  private List<Scored> sorted() {
    return scores.entrySet().stream()
        .map(entry -> new Scored(entry.getKey(), entry.getValue()))
        .sorted(HIGHEST_FIRST)
        .toList();
  }
}
