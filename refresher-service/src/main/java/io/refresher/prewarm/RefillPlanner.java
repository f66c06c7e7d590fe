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
 *
 * <p>A source with a batch form computes up to {@code maxBatch} keys with one query: its keys take
 * a datasource rank per batch, not per key. The hottest of them opens a batch at the next rank; the
 * next (cooler) keys of that source join it, at the same due time, until it is full. The dispatcher
 * runs keys of one source due at one time as one query, so the bound counts queries, as it does
 * for any refresh.
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
  public record Candidate(String key, double rate, String datasource, boolean hot, String source, int maxBatch) {

    /** A key of a source without a batch form. */
    public Candidate(String key, double rate, String datasource, boolean hot) {
      this(key, rate, datasource, hot, null, 1);
    }
  }

  /** Where a source's refills go: its datasource, and how many of its keys one query computes. */
  public record SourcePlace(String datasource, int maxBatch) {}

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
    // per batch source: the due time of its open batch, and how many keys it holds
    Map<String, double[]> openBatches = new HashMap<>();
    List<Planned> plan = new ArrayList<>(ranked.size());
    for (Candidate candidate : ranked) {
      double due;
      if (candidate.source() != null && candidate.maxBatch() > 1) {
        double[] open = openBatches.get(candidate.source());
        if (open == null || open[1] >= candidate.maxBatch()) {
          open = new double[] {nextDue(candidate, rankInDatasource, queriesPerSecond, nowMillis), 0};
          openBatches.put(candidate.source(), open);
        }
        open[1]++;
        due = open[0];
      } else {
        due = nextDue(candidate, rankInDatasource, queriesPerSecond, nowMillis);
      }
      plan.add(new Planned(candidate.key(), due, candidate.rate(), candidate.datasource(), candidate.hot()));
    }
    plan.sort(Comparator.comparingDouble(Planned::dueAtMillis));
    return plan;
  }

  /** The due time of the datasource's next rank (one query's place under its rate bound). */
  private static double nextDue(
      Candidate candidate, Map<String, Integer> rankInDatasource, Map<String, Integer> queriesPerSecond, long nowMillis) {
    int rank = rankInDatasource.merge(candidate.datasource(), 1, Integer::sum) - 1;
    int rate = queriesPerSecond.getOrDefault(candidate.datasource(), 0);
    double step = rate > 0 ? 1000.0 / rate : UNBOUNDED_STEP_MILLIS;
    return nowMillis + rank * step;
  }
}
