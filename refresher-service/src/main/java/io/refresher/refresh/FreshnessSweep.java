package io.refresher.refresh;

import io.refresher.registry.RefreshPolicy;
import io.refresher.registry.Registration;
import io.refresher.registry.RegistrationLookup;
import io.refresher.registry.RegistrationRepository;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

/**
 * How fresh the kept keys are, per source: a sweep over every key the service keeps (the {@code
 * always} registrations, then the hot set), a page at a time, reading each key's value time and
 * planned refresh in one round trip per page. What a hit rate cannot show: a source whose
 * refreshes fail keeps serving old values (its oldest value ages), and a dispatcher that falls
 * behind leaves keys past their planned refresh.
 *
 * <ul>
 *   <li><b>oldest value</b>: the largest {@code now - t} over the source's kept keys that have a
 *       value, {@code t} being when the value was last known current (computed, or revalidated);
 *   <li><b>past planned</b>: the share of the source's kept keys whose planned refresh (their due
 *       time) is more than {@code grace} ago: the backlog (a failing key's retries move its plan,
 *       so it shows in the oldest value instead);
 *   <li><b>without a value</b>: kept keys that have none (evicted, or never computed).
 * </ul>
 *
 * <p>Cost per page of {@value #PAGE} keys: one registry query and one Redis round trip.
 */
public final class FreshnessSweep {

  static final int PAGE = 1000;

  /** One source's figures in a sweep. */
  public record SourceFreshness(long kept, long withoutValue, long pastPlanned, long oldestValueAgeMillis) {

    /** The share of the kept keys past their planned refresh; 0 when none are kept. */
    public double pastPlannedShare() {
      return kept == 0 ? 0 : (double) pastPlanned / kept;
    }
  }

  /** A sweep's result: when it ended, and the figures by source. */
  public record Report(long atMillis, Map<String, SourceFreshness> bySource) {
    public Report {
      bySource = Map.copyOf(bySource);
    }
  }

  private final RegistrationRepository registrations;
  private final Supplier<Collection<String>> hotSet;
  private final RegistrationLookup lookup;
  private final CacheStore store;
  private final DueIndex due;
  private final InstantSource clock;
  private final Duration grace;

  /** @param grace how late a planned refresh may be before its key counts as past it */
  public FreshnessSweep(
      RegistrationRepository registrations,
      Supplier<Collection<String>> hotSet,
      RegistrationLookup lookup,
      CacheStore store,
      DueIndex due,
      InstantSource clock,
      Duration grace) {
    this.registrations = registrations;
    this.hotSet = hotSet;
    this.lookup = lookup;
    this.store = store;
    this.due = due;
    this.clock = clock;
    this.grace = grace;
  }

  /** Sweeps every kept key; throws when the registry or Redis cannot be read (the next sweep retries). */
  public Report sweep() {
    Map<String, long[]> figures = new HashMap<>();
    Set<String> seen = new LinkedHashSet<>();
    String after = "";
    while (true) {
      List<String> keys = registrations.keysAfter(after, PAGE, RefreshPolicy.ALWAYS);
      if (keys.isEmpty()) {
        break;
      }
      seen.addAll(keys);
      page(keys, figures);
      after = keys.get(keys.size() - 1);
      if (keys.size() < PAGE) {
        break;
      }
    }
    List<String> hot = new ArrayList<>();
    for (String key : hotSet.get()) {
      if (seen.add(key)) {
        hot.add(key);
      }
      if (hot.size() == PAGE) {
        page(hot, figures);
        hot = new ArrayList<>();
      }
    }
    if (!hot.isEmpty()) {
      page(hot, figures);
    }
    Map<String, SourceFreshness> bySource = new HashMap<>();
    figures.forEach((source, f) -> bySource.put(source, new SourceFreshness(f[0], f[1], f[2], f[3])));
    return new Report(clock.millis(), bySource);
  }

  /** Adds a page of kept keys to the figures: kept, without value, past planned, oldest age. */
  private void page(List<String> keys, Map<String, long[]> figures) {
    Map<String, Registration> covered = lookup.findAll(keys);
    List<String> kept = new ArrayList<>(covered.keySet());
    if (kept.isEmpty()) {
      return;
    }
    Map<String, Long> valueTimes = store.valueTimes(kept);
    Map<String, Long> planned = due.plannedAt(kept);
    long now = clock.millis();
    for (String key : kept) {
      long[] f = figures.computeIfAbsent(covered.get(key).source(), source -> new long[4]);
      f[0]++;
      Long valueAt = valueTimes.get(key);
      if (valueAt == null) {
        f[1]++;
      } else {
        f[3] = Math.max(f[3], Math.max(0, now - valueAt));
      }
      Long plannedAt = planned.get(key);
      if (plannedAt != null && now - plannedAt > grace.toMillis()) {
        f[2]++;
      }
    }
  }
}
