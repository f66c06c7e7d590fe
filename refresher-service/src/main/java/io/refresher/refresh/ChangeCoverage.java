package io.refresher.refresh;

import io.refresher.registry.KeyResolver;
import io.refresher.registry.RegistrationLookup;
import io.refresher.failure.RegistryUnavailableException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;

/**
 * Which of the keys named by change notifications the service computes at all: those a template
 * covers (matched in memory against this replica's templates) or that have a registration of their
 * own (looked up in the registry, {@link #LOOKUP_BATCH} keys per query). Asked before a key takes a
 * place in the coalescer's pending set, so that notifications for rows nobody caches (most rows
 * of a table with a trigger, or a flood of them) cost one query per batch and never crowd out the
 * changes of keys that are kept (issue 18: 200,000 notifications of unregistered keys took the
 * 100,000 places, one registry query each, and the real change after them was dropped).
 *
 * <p>A batch of more than {@link #LOOKUP_BATCH} keys is looked up in several queries at once, on
 * the {@code lookups} executor (whose threads bound how many pool connections a flood takes): the
 * listener reads no notification while it waits, so the sooner a flood is sorted out, the sooner
 * the covered change behind it runs.
 *
 * <p>A key that is covered now may be found gone when its change runs: {@link ChangeRefresh} looks
 * it up again then, and ignores it.
 */
public final class ChangeCoverage {

  /** Keys per registry query: an {@code = ANY(array)} of 10,000 keys is one index scan. */
  public static final int LOOKUP_BATCH = 10_000;

  private final KeyResolver.TemplateMatcher templates;
  private final RegistrationLookup registrations;
  private final Executor lookups;

  /**
   * @param templates this replica's templates, in memory
   * @param registrations the registry (a key's own registration, or a template's)
   * @param lookups runs the queries of a batch of more than {@link #LOOKUP_BATCH} keys at once
   */
  public ChangeCoverage(KeyResolver.TemplateMatcher templates, RegistrationLookup registrations, Executor lookups) {
    this.templates = templates;
    this.registrations = registrations;
    this.lookups = lookups;
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
    List<List<String>> batches = new ArrayList<>();
    List<String> batch = new ArrayList<>();
    for (String key : distinct) {
      if (covered.contains(key)) {
        continue;
      }
      if (batch.size() == LOOKUP_BATCH) {
        batches.add(batch);
        batch = new ArrayList<>();
      }
      batch.add(key);
    }
    if (!batch.isEmpty()) {
      batches.add(batch);
    }
    if (batches.size() == 1) {
      covered.addAll(registrations.findAll(batches.get(0)).keySet());
      return covered;
    }
    List<CompletableFuture<Set<String>>> found = new ArrayList<>(batches.size());
    for (List<String> keysOfQuery : batches) {
      found.add(CompletableFuture.supplyAsync(() -> registrations.findAll(keysOfQuery).keySet(), lookups));
    }
    for (CompletableFuture<Set<String>> query : found) {
      try {
        covered.addAll(query.join());
      } catch (CompletionException e) {
        if (e.getCause() instanceof RuntimeException cause) {
          throw cause;
        }
        throw e;
      }
    }
    return covered;
  }
}
