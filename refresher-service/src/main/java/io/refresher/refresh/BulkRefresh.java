package io.refresher.refresh;

import io.refresher.registry.Registration;
import io.refresher.registry.RegistrationLookup;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.Semaphore;

/**
 * Refreshes a set of keys now, as asked by an operator or an application that changed their data
 * ({@code POST /v1/refresh}): each through the one refresh path (load bound, lock, fence), a few at
 * a time, and answers what became of each.
 *
 * <p>It is the datasource's load bound, not this class, that protects the database: a refresh that
 * cannot get its turn within the bound's wait budget is skipped as {@code throttled} (and stays
 * due). The parallelism here only overlaps the waits, so that a hundred keys on a bound of ten in
 * flight take ten rounds, not a hundred.
 */
public final class BulkRefresh {

  /**
   * What became of one key.
   *
   * @param outcome null when the key is neither registered nor covered by a template
   */
  public record Result(String key, RefreshOutcome outcome) {
    public boolean registered() {
      return outcome != null;
    }
  }

  private final RegistrationLookup lookup;
  private final Refresher refresher;
  private final Executor executor;
  private final int parallelism;

  /**
   * @param executor runs the refreshes (its threads may be shared by concurrent requests)
   * @param parallelism most refreshes one request runs at once
   */
  public BulkRefresh(RegistrationLookup lookup, Refresher refresher, Executor executor, int parallelism) {
    this.lookup = lookup;
    this.refresher = refresher;
    this.executor = executor;
    this.parallelism = parallelism;
  }

  /**
   * Refreshes each key once (duplicates are refreshed once), and returns the results in the order
   * the keys were given.
   *
   * @throws io.refresher.failure.RegistryUnavailableException when the registry cannot be read
   */
  public List<Result> refresh(List<String> keys) {
    List<String> distinct = new ArrayList<>(new LinkedHashSet<>(keys));
    Map<String, Registration> registrations = new java.util.HashMap<>(lookup.findAll(distinct));
    if (registrations.size() < distinct.size()) {
      // a template created a moment ago through another replica is not "not registered"
      List<String> missing = distinct.stream().filter(key -> !registrations.containsKey(key)).toList();
      registrations.putAll(lookup.recheck(missing));
    }
    Semaphore slots = new Semaphore(parallelism);
    Map<String, CompletableFuture<RefreshOutcome>> outcomes = new java.util.HashMap<>();
    // Keys of a source with a batch form go together, as many as one query takes; the others one by one.
    Map<String, List<Registration>> bySource = new java.util.LinkedHashMap<>();
    for (String key : distinct) {
      Registration registration = registrations.get(key);
      if (registration == null) {
        continue;
      }
      int maxBatch = refresher.batchForm(registration).map(io.refresher.source.BatchForm::maxBatch).orElse(1);
      if (maxBatch > 1) {
        List<Registration> open = bySource.computeIfAbsent(registration.source(), source -> new ArrayList<>());
        open.add(registration);
        if (open.size() == maxBatch) {
          submit(bySource.remove(registration.source()), slots, outcomes);
        }
      } else {
        submit(List.of(registration), slots, outcomes);
      }
    }
    bySource.values().forEach(batch -> submit(batch, slots, outcomes));
    List<Result> answered = new ArrayList<>(distinct.size());
    for (String key : distinct) {
      CompletableFuture<RefreshOutcome> outcome = outcomes.get(key);
      try {
        answered.add(new Result(key, outcome == null ? null : outcome.join()));
      } catch (CompletionException e) {
        throw e.getCause() instanceof RuntimeException runtime ? runtime : e;
      }
    }
    return answered;
  }

  /** Runs one refresh (one key, or a batch of one source's keys) on a free slot. */
  private void submit(List<Registration> batch, Semaphore slots, Map<String, CompletableFuture<RefreshOutcome>> outcomes) {
    slots.acquireUninterruptibly();
    CompletableFuture<Map<String, RefreshOutcome>> run;
    try {
      run =
          CompletableFuture.supplyAsync(
              () -> {
                try {
                  return batch.size() == 1
                      ? Map.of(batch.get(0).key(), refresher.refresh(batch.get(0), Trigger.MANUAL))
                      : refresher.refreshBatch(batch, Trigger.MANUAL);
                } finally {
                  slots.release();
                }
              },
              executor);
    } catch (RuntimeException rejected) {
      slots.release();
      throw rejected;
    }
    for (Registration registration : batch) {
      outcomes.put(registration.key(), run.thenApply(answer -> answer.get(registration.key())));
    }
  }
}
