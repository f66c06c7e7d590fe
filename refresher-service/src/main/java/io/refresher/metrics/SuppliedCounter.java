package io.refresher.metrics;

import com.codahale.metrics.Counter;
import com.codahale.metrics.MetricRegistry;
import java.util.function.LongSupplier;

/**
 * A Dropwizard {@link Counter} whose count is a running total kept elsewhere (a domain object's
 * {@code AtomicLong}), so that the total is exported as a counter ({@code <name>_total}, TYPE
 * counter) and not as a gauge: Prometheus's {@code rate()} and {@code increase()} need a counter to
 * take a restart (the total falling back to 0) as a reset rather than as a drop. The supplier
 * must never decrease while the process runs; {@link #inc} and {@link #dec} are refused, since the
 * owner of the total is the only one to change it.
 */
public final class SuppliedCounter extends Counter {

  private final LongSupplier total;

  SuppliedCounter(LongSupplier total) {
    this.total = total;
  }

  @Override
  public long getCount() {
    return total.getAsLong();
  }

  @Override
  public void inc(long n) {
    throw new UnsupportedOperationException("a supplied counter follows its total");
  }

  @Override
  public void dec(long n) {
    throw new UnsupportedOperationException("a supplied counter follows its total");
  }

  /** Registers a counter that reads {@code total}. */
  public static void register(MetricRegistry metrics, String name, LongSupplier total) {
    metrics.register(name, new SuppliedCounter(total));
  }
}
