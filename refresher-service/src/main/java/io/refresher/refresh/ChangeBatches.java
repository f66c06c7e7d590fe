package io.refresher.refresh;

import io.refresher.registry.Registration;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Gathers the changed keys of a batch source into one source query, the way a database groups
 * commits: a key that comes while no query of its source runs goes at once (a lone change waits
 * for nothing); keys that come while one runs wait for it and then go together, up to the
 * source's {@code maxBatch} per query. Under a burst of changes a source therefore runs one query
 * at a time, each carrying what arrived meanwhile, and never more than one key waits longer than a
 * query.
 *
 * <p>Each key is still written under its own lock and fence ({@link Refresher#refreshBatch}, which
 * runs a lone key's single-key query); its outcome completes its own future. Queries run on the
 * {@link DelayedTasks}' threads.
 */
public final class ChangeBatches {

  private static final Logger LOG = LoggerFactory.getLogger(ChangeBatches.class);

  private record Waiting(Registration registration, CompletableFuture<RefreshOutcome> outcome) {}

  /** The keys of one source waiting for its next query, and whether one runs. */
  private static final class Line {
    final ArrayDeque<Waiting> waiting = new ArrayDeque<>();
    boolean running;
  }

  private final Refresher refresher;
  private final DelayedTasks tasks;
  private final Map<String, Line> lines = new HashMap<>();

  public ChangeBatches(Refresher refresher, DelayedTasks tasks) {
    this.refresher = refresher;
    this.tasks = tasks;
  }

  /**
   * Refreshes the key with the next query of its source.
   *
   * @param maxBatch the source's keys per query at most
   * @return the key's outcome, once its query ran and its value was written (or not)
   */
  public CompletionStage<RefreshOutcome> refresh(Registration registration, int maxBatch) {
    CompletableFuture<RefreshOutcome> outcome = new CompletableFuture<>();
    boolean start;
    synchronized (this) {
      Line line = lines.computeIfAbsent(registration.source(), source -> new Line());
      line.waiting.add(new Waiting(registration, outcome));
      start = !line.running;
      line.running = true;
    }
    if (start) {
      tasks.run(() -> drain(registration.source(), maxBatch), Duration.ZERO);
    }
    return outcome;
  }

  /** Runs the source's queries until no key waits. */
  private void drain(String source, int maxBatch) {
    while (true) {
      List<Waiting> batch = new ArrayList<>();
      synchronized (this) {
        Line line = lines.get(source);
        while (batch.size() < maxBatch && !line.waiting.isEmpty()) {
          batch.add(line.waiting.poll());
        }
        if (batch.isEmpty()) {
          line.running = false;
          lines.remove(source);
          return;
        }
      }
      run(batch);
    }
  }

  private void run(List<Waiting> batch) {
    try {
      Map<String, RefreshOutcome> outcomes =
          refresher.refreshBatch(batch.stream().map(Waiting::registration).toList(), Trigger.CHANGE);
      for (Waiting waiting : batch) {
        RefreshOutcome outcome = outcomes.get(waiting.registration().key());
        if (outcome == null) {
          waiting.outcome().completeExceptionally(
              new IllegalStateException("no outcome for key '" + waiting.registration().key() + "' in its batch"));
        } else {
          waiting.outcome().complete(outcome);
        }
      }
    } catch (RuntimeException | Error e) {
      // every waiting key gets its answer, so no change stays pending for ever; the line goes on
      LOG.debug("a batch of {} changed keys failed: {}", batch.size(), e.toString());
      batch.forEach(waiting -> waiting.outcome().completeExceptionally(e));
    }
  }
}
