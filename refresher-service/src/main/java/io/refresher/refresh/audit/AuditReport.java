package io.refresher.refresh.audit;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * The audit's figures over a window, per source and per template of a source.
 *
 * @param bySource one entry per audited source (template null)
 * @param byTemplate one entry per source and template (template null for the source's keys
 *     registered by themselves)
 */
public record AuditReport(long fromMillis, long toMillis, List<Figures> bySource, List<Figures> byTemplate) {

  public AuditReport {
    bySource = List.copyOf(bySource);
    byTemplate = List.copyOf(byTemplate);
  }

  /**
   * Samples that concluded, and what they concluded.
   *
   * @param samples matches and mismatches (an inconclusive sample is not a sample)
   * @param maxMismatchAgeMillis the largest age of a mismatch; null without one
   * @param p99MismatchAgeMillis the 99th percentile of the mismatches' ages (nearest rank); null
   *     without one
   */
  public record Figures(
      String source,
      String template,
      long samples,
      long matches,
      long mismatches,
      long inconclusive,
      Long maxMismatchAgeMillis,
      Long p99MismatchAgeMillis) {

    /** The share of samples that matched; null without a sample. */
    public Double matchRatio() {
      return samples == 0 ? null : (double) matches / samples;
    }

    /**
     * The match ratio as nines ({@code -log10} of the mismatch ratio: 0.999 is 3): null while no
     * sample mismatched, when there is no finite figure (with N samples and none wrong, the result
     * is only known to be above about {@code log10(N)}).
     */
    public Double nines() {
      return samples == 0 || mismatches == 0 ? null : -Math.log10((double) mismatches / samples);
    }
  }

  /** Adds up counts and ages, bucket by bucket, into a report. */
  public static final class Builder {

    private record Group(String source, String template) {}

    private static final Comparator<Group> ORDER =
        Comparator.comparing(Group::source).thenComparing(Group::template, Comparator.nullsFirst(Comparator.naturalOrder()));

    private final Map<Group, long[]> counts = new TreeMap<>(ORDER);
    private final Map<Group, List<Long>> ages = new TreeMap<>(ORDER);

    /** Adds {@code count} samples of {@code verdict}. */
    public Builder count(String source, String template, Verdict verdict, long count) {
      counts.computeIfAbsent(new Group(source, template), group -> new long[Verdict.values().length])[verdict.ordinal()] += count;
      return this;
    }

    /** Adds a mismatch's age (its count goes through {@link #count}). */
    public Builder age(String source, String template, long ageMillis) {
      ages.computeIfAbsent(new Group(source, template), group -> new ArrayList<>()).add(ageMillis);
      return this;
    }

    public AuditReport build(long fromMillis, long toMillis) {
      Map<String, long[]> sourceCounts = new TreeMap<>();
      Map<String, List<Long>> sourceAges = new TreeMap<>();
      List<Figures> byTemplate = new ArrayList<>();
      counts.forEach(
          (group, c) -> {
            List<Long> groupAges = ages.getOrDefault(group, List.of());
            byTemplate.add(figures(group.source(), group.template(), c, groupAges));
            long[] total = sourceCounts.computeIfAbsent(group.source(), source -> new long[Verdict.values().length]);
            for (int i = 0; i < c.length; i++) {
              total[i] += c[i];
            }
            sourceAges.computeIfAbsent(group.source(), source -> new ArrayList<>()).addAll(groupAges);
          });
      List<Figures> bySource = new ArrayList<>();
      sourceCounts.forEach((source, c) -> bySource.add(figures(source, null, c, sourceAges.get(source))));
      return new AuditReport(fromMillis, toMillis, bySource, byTemplate);
    }

    private static Figures figures(String source, String template, long[] c, List<Long> ages) {
      long matches = c[Verdict.MATCH.ordinal()];
      long mismatches = c[Verdict.MISMATCH.ordinal()];
      List<Long> sorted = ages.stream().filter(Objects::nonNull).sorted().toList();
      Long max = sorted.isEmpty() ? null : sorted.get(sorted.size() - 1);
      Long p99 = sorted.isEmpty() ? null : sorted.get((int) Math.ceil(0.99 * sorted.size()) - 1);
      return new Figures(source, template, matches + mismatches, matches, mismatches, c[Verdict.INCONCLUSIVE.ordinal()], max, p99);
    }
  }
}
