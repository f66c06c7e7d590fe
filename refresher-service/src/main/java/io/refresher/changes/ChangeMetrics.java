package io.refresher.changes;

import com.codahale.metrics.Counter;
import com.codahale.metrics.Gauge;
import com.codahale.metrics.MetricRegistry;
import io.refresher.refresh.ChangeEvents;
import io.refresher.refresh.ChangeTotals;
import java.util.function.IntSupplier;

/**
 * The change path's counters ({@code refresher.changes.*}, running totals: {@code _total} in
 * Prometheus) and two gauges: {@code refresher.changes.listening}, on how many datasources this
 * replica is the listener now (0 on a standby; 1 on the leader of a service with one datasource
 * with feeds), and {@code refresher.changes.pending}, how many keys have a change refresh going on
 * or planned here; and {@code refresher.changes.feeds}, how many datasources have change feeds
 * (each needs one listener across the replicas: {@code sum(refresher_changes_listening)} below
 * {@code max(refresher_changes_feeds)} means changes are being lost).
 */
public final class ChangeMetrics implements ChangeEvents {

  private final Counter received;
  private final Counter coalesced;
  private final Counter refreshed;
  private final Counter evicted;
  private final Counter ignored;
  private final Counter deferred;
  private final Counter dropped;
  private final Counter retried;
  private final Counter failed;

  public ChangeMetrics(MetricRegistry metrics, IntSupplier listening, IntSupplier pending, int feeds) {
    received = metrics.counter("refresher.changes.received");
    coalesced = metrics.counter("refresher.changes.coalesced");
    refreshed = metrics.counter("refresher.changes.refreshed");
    evicted = metrics.counter("refresher.changes.evicted");
    ignored = metrics.counter("refresher.changes.ignored");
    deferred = metrics.counter("refresher.changes.deferred");
    dropped = metrics.counter("refresher.changes.dropped");
    retried = metrics.counter("refresher.changes.retried");
    failed = metrics.counter("refresher.changes.failed");
    metrics.register("refresher.changes.listening", (Gauge<Integer>) listening::getAsInt);
    metrics.register("refresher.changes.pending", (Gauge<Integer>) pending::getAsInt);
    metrics.register("refresher.changes.feeds", (Gauge<Integer>) () -> feeds);
  }

  /** The counters' values now. */
  public ChangeTotals totals() {
    return new ChangeTotals(
        received.getCount(),
        coalesced.getCount(),
        refreshed.getCount(),
        evicted.getCount(),
        ignored.getCount(),
        deferred.getCount(),
        dropped.getCount(),
        retried.getCount(),
        failed.getCount());
  }

  @Override
  public void received() {
    received.inc();
  }

  @Override
  public void coalesced() {
    coalesced.inc();
  }

  @Override
  public void refreshed() {
    refreshed.inc();
  }

  @Override
  public void evicted() {
    evicted.inc();
  }

  @Override
  public void ignored() {
    ignored.inc();
  }

  @Override
  public void ignored(long count) {
    ignored.inc(count);
  }

  @Override
  public void deferred() {
    deferred.inc();
  }

  @Override
  public void dropped() {
    dropped.inc();
  }

  @Override
  public void retried() {
    retried.inc();
  }

  @Override
  public void failed() {
    failed.inc();
  }
}
