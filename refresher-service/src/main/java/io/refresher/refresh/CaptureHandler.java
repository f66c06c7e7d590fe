package io.refresher.refresh;

import io.refresher.failure.RegistryUnavailableException;
import io.refresher.registry.KeyTemplate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where the row changes read from a datasource's write-ahead log enter the domain. Unlike a
 * notification, a row change is acknowledged to the database (which then forgets it) only when
 * {@link #apply} returns true: every key the changes name has been refreshed or evicted, or found
 * not covered. So {@link #apply} blocks until then, retrying what could not be applied (Redis or
 * the registry unreachable) with a doubling delay, for as long as it takes: a change is late
 * rather than lost, and the log keeps it meanwhile (the slot's lag, which is watched, shows it).
 *
 * <p>What a change does is the notification feed's rule ({@link ChangeRefresh}): a kept key is
 * refreshed, any other covered key evicted, through the same coalescer, so a key changed by both
 * feeds runs once per window. A deleted row's keys (and the keys an update moved a row away from)
 * are evicted whether kept or not: a refresh would find no row. Keys nothing covers cost one
 * registry query per batch ({@link ChangeCoverage}) and never take a place in the coalescer, so a
 * flood of changes to rows nobody caches does not delay the changes of kept keys.
 *
 * <p>Called on the capture's thread, one batch at a time.
 */
public final class CaptureHandler {

  private static final Logger LOG = LoggerFactory.getLogger(CaptureHandler.class);
  static final Duration FIRST_RETRY = Duration.ofMillis(100);
  static final Duration MAX_RETRY = Duration.ofSeconds(5);
  /** How often a wait for a run checks whether the capture is stopping. */
  private static final Duration WAIT_STEP = Duration.ofMillis(500);

  private final String datasource;
  private final Map<String, CaptureTable> tables;
  private final Supplier<List<KeyTemplate>> templates;
  private final ChangeCoverage coverage;
  private final ChangeCoalescer changes;
  private final ChangeCoalescer evictions;
  private final ChangeEvents events;
  private final Object stopSignal = new Object();
  private volatile boolean stopped;

  /**
   * @param tables the captured tables of {@code datasource}, by {@code schema.table}
   * @param changes the change path's coalescer (refresh a kept key, evict another)
   * @param evictions a coalescer that evicts (for rows that are gone)
   */
  public CaptureHandler(
      String datasource,
      Map<String, CaptureTable> tables,
      Supplier<List<KeyTemplate>> templates,
      ChangeCoverage coverage,
      ChangeCoalescer changes,
      ChangeCoalescer evictions,
      ChangeEvents events) {
    this.datasource = datasource;
    this.tables = Map.copyOf(tables);
    this.templates = templates;
    this.coverage = coverage;
    this.changes = changes;
    this.evictions = evictions;
    this.events = events;
  }

  /** The keys a batch of row changes names: to refresh-or-evict, and to evict. */
  record Named(Set<String> changed, Set<String> gone, long unusable) {}

  Named name(List<RowChange> batch) {
    List<KeyTemplate> inForce = templates.get();
    Set<String> changed = new LinkedHashSet<>();
    Set<String> gone = new LinkedHashSet<>();
    long unusable = 0;
    for (RowChange change : batch) {
      CaptureTable table = tables.get(change.table());
      if (table == null) {
        unusable++;
        continue;
      }
      Set<String> now = table.keysOf(change.row(), inForce);
      Set<String> before = table.keysOf(change.oldRow(), inForce);
      if (change.operation() == RowChange.Operation.DELETE) {
        gone.addAll(now);
      } else {
        changed.addAll(now);
      }
      for (String key : before) {
        if (!now.contains(key)) {
          gone.add(key);
        }
      }
      if (now.isEmpty() && before.isEmpty()) {
        unusable++;
      }
    }
    // a key both changed and gone in one batch: its last state decides, and eviction is safe either way
    changed.removeAll(gone);
    return new Named(changed, gone, unusable);
  }

  /**
   * Applies a batch of row changes, in full, before it returns.
   *
   * @return true when every change is applied (acknowledge the batch); false when the service is
   *     stopping (acknowledge nothing: the next reader reads the batch again)
   */
  public boolean apply(List<RowChange> batch) {
    for (int i = 0; i < batch.size(); i++) {
      events.received();
    }
    Named named = name(batch);
    if (named.unusable() > 0) {
      LOG.debug("{} row changes on datasource '{}' name no key", named.unusable(), datasource);
    }
    Map<String, ChangeCoalescer> toApply = new LinkedHashMap<>();
    Duration delay = FIRST_RETRY;
    int attempt = 0;
    Set<String> all = new LinkedHashSet<>(named.changed());
    all.addAll(named.gone());
    while (!all.isEmpty()) {
      try {
        Set<String> covered = coverage.covered(all);
        events.ignored(all.size() - covered.size());
        for (String key : covered) {
          toApply.put(key, named.gone().contains(key) ? evictions : changes);
        }
        break;
      } catch (RegistryUnavailableException e) {
        attempt++;
        logRetry(attempt, all.size(), "the registry cannot be read (" + e.getMessage() + ")");
        if (!pause(delay)) {
          return false;
        }
        delay = next(delay);
      }
    }
    delay = FIRST_RETRY;
    attempt = 0;
    while (!toApply.isEmpty()) {
      Map<String, CompletableFuture<Boolean>> runs = new LinkedHashMap<>();
      for (Map.Entry<String, ChangeCoalescer> entry : toApply.entrySet()) {
        CompletableFuture<Boolean> applied = new CompletableFuture<>();
        if (!offer(entry.getValue(), entry.getKey(), applied)) {
          return false;
        }
        runs.put(entry.getKey(), applied);
      }
      List<String> failed = new ArrayList<>();
      for (Map.Entry<String, CompletableFuture<Boolean>> run : runs.entrySet()) {
        Boolean applied = await(run.getValue());
        if (applied == null) {
          return false;
        }
        if (!applied) {
          failed.add(run.getKey());
        }
      }
      if (stopped || changes.isClosed() || evictions.isClosed()) {
        return false;
      }
      toApply.keySet().retainAll(failed);
      if (!toApply.isEmpty()) {
        attempt++;
        logRetry(attempt, toApply.size(), "their refresh or eviction failed (Redis or the registry unreachable)");
        if (!pause(delay)) {
          return false;
        }
        delay = next(delay);
      }
    }
    return true;
  }

  /** Stops waiting: a batch being applied returns false (it is read again by the next reader). */
  public void stop() {
    stopped = true;
    synchronized (stopSignal) {
      stopSignal.notifyAll();
    }
  }

  private boolean offer(ChangeCoalescer coalescer, String key, CompletableFuture<Boolean> applied) {
    while (!coalescer.changed(key, applied::complete)) {
      if (stopped || coalescer.isClosed()) {
        return false;
      }
      try {
        coalescer.awaitRoom();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return false;
      }
    }
    return true;
  }

  /** The run's answer; null when stopping first (a run whose task was refused never answers). */
  private Boolean await(CompletableFuture<Boolean> applied) {
    while (true) {
      try {
        return applied.get(WAIT_STEP.toMillis(), TimeUnit.MILLISECONDS);
      } catch (TimeoutException e) {
        if (stopped) {
          return null;
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return null;
      } catch (ExecutionException e) {
        return false;
      }
    }
  }

  private void logRetry(int attempt, int keys, String why) {
    events.failed();
    if (attempt == 1 || Integer.bitCount(attempt) == 1) {
      LOG.warn(
          "{} changed keys of datasource '{}' not applied yet: {}; tried {} times, trying again (the log keeps them meanwhile)",
          keys,
          datasource,
          why,
          attempt);
    }
  }

  private boolean pause(Duration delay) {
    synchronized (stopSignal) {
      if (!stopped) {
        try {
          stopSignal.wait(delay.toMillis());
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return false;
        }
      }
    }
    return !stopped;
  }

  private static Duration next(Duration delay) {
    Duration doubled = delay.multipliedBy(2);
    return doubled.compareTo(MAX_RETRY) > 0 ? MAX_RETRY : doubled;
  }
}
