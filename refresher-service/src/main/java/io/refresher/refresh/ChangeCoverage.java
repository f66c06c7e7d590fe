package io.refresher.refresh;

import io.refresher.registry.KeyResolver;
import io.refresher.registry.RegistrationLookup;
import io.refresher.registry.RegistryUnavailableException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Which of the keys named by change notifications the service computes at all: those a template
 * covers (matched in memory against this replica's templates) or that have a registration of their
 * own (looked up in the registry, {@link #LOOKUP_BATCH} keys per query). Asked before a key takes a
 * place in the coalescer's pending set, so that notifications for rows nobody caches (most rows
 * of a table with a trigger, or a flood of them) cost one query per batch and never crowd out the
 * changes of keys that are kept (issue 18: 200,000 notifications of unregistered keys took the
 * 100,000 places, one registry query each, and the real change after them was dropped).
 *
 * <p>A key that is covered now may be found gone when its change runs: {@link ChangeRefresh} looks
 * it up again then, and ignores it.
 */
public final class ChangeCoverage {

  /** Keys per registry query: an {@code = ANY(array)} of 10,000 keys is one index scan. */
  public static final int LOOKUP_BATCH = 10_000;

  private final KeyResolver.TemplateMatcher templates;
  private final RegistrationLookup registrations;

  /**
   * @param templates this replica's templates, in memory
   * @param registrations the registry (a key's own registration, or a template's)
   */
  public ChangeCoverage(KeyResolver.TemplateMatcher templates, RegistrationLookup registrations) {
    this.templates = templates;
    this.registrations = registrations;
  }

  /** The ones of {@code keys} a template covers (in memory; no registry query). */
  public Set<String> coveredByTemplates(Collection<String> keys) {
    return new LinkedHashSet<>(templates.resolveAll(new LinkedHashSet<>(keys)).keySet());
  }

  /**
   * The covered ones of {@code keys}.
   *
   * @throws RegistryUnavailableException when the registry cannot be read
   */
  public Set<String> covered(Collection<String> keys) {
    Set<String> distinct = new LinkedHashSet<>(keys);
    Set<String> covered = new LinkedHashSet<>(templates.resolveAll(distinct).keySet());
    List<String> batch = new ArrayList<>(Math.min(LOOKUP_BATCH, distinct.size()));
    for (String key : distinct) {
      if (covered.contains(key)) {
        continue;
      }
      batch.add(key);
      if (batch.size() == LOOKUP_BATCH) {
        covered.addAll(registrations.findAll(batch).keySet());
        batch.clear();
      }
    }
    if (!batch.isEmpty()) {
      covered.addAll(registrations.findAll(batch).keySet());
    }
    return covered;
  }
}
