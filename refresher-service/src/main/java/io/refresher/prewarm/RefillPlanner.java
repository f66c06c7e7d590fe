package io.refresher.prewarm;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Decides the order and the pace of a refill: the hottest keys first, each datasource at the rate
 * its load bound allows.
 *
 * <p>Within each datasource the candidates are ranked by popularity (reads/s, highest first; key
 * order breaks ties) and the key of rank {@code i} is given the due time {@code now + i / rate}.
 * The due index then does the rest: the dispatchers of all replicas claim keys as they fall due,
 * earliest first, so the refill is spread over the replicas and paced at the bound without any
 * coordination, and the hottest keys are claimed (and written) first. A datasource without a rate
 * bound gets the same order with all keys due at once (a microsecond apart): its refill goes as
 * fast as the workers allow, still hottest first.
 */
public final class RefillPlanner {

  /** Rank offset, in milliseconds, between consecutive keys of an unbounded datasource. */
  static final double UNBOUNDED_STEP_MILLIS = 0.001;

  /**
   * A key that may be refilled.
   *
   * @param rate its popularity (reads/s); 0 for an {@code always} key nobody has read
   * @param hot whether it is kept fresh because it is hot (it joins the hot set), rather than
   *     because its policy is {@code always}
   */
  public record Candidate(String key, double rate, String datasource, boolean hot) {}

  /** A key of the plan, with its due time (epoch ms, fractional: ranks of one millisecond). */
  public record Planned(String key, double dueAtMillis, double rate, String datasource, boolean hot) {}

  private RefillPlanner() {}

  /**
   * @param queriesPerSecond each datasource's rate bound; missing or 0: unbounded
   * @return the plan, earliest first
   */
  public static List<Planned> plan(
      Collection<Candidate> candidates, Map<String, Integer> queriesPerSecond, long nowMillis) {
    List<Candidate> ranked = new ArrayList<>(candidates);
    ranked.sort(Comparator.comparingDouble(Candidate::rate).reversed().thenComparing(Candidate::key));
    Map<String, Integer> rankInDatasource = new HashMap<>();
    List<Planned> plan = new ArrayList<>(ranked.size());
    for (Candidate candidate : ranked) {
      int rank = rankInDatasource.merge(candidate.datasource(), 1, Integer::sum) - 1;
      int rate = queriesPerSecond.getOrDefault(candidate.datasource(), 0);
      double step = rate > 0 ? 1000.0 / rate : UNBOUNDED_STEP_MILLIS;
      plan.add(new Planned(candidate.key(), nowMillis + rank * step, candidate.rate(), candidate.datasource(), candidate.hot()));
    }
    plan.sort(Comparator.comparingDouble(Planned::dueAtMillis));
    return plan;
  }
}
