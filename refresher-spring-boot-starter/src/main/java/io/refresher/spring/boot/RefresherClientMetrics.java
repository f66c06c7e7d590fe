package io.refresher.spring.boot;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.refresher.client.RefresherClient;
import java.util.function.ToDoubleFunction;

/**
 * The client's counters as Micrometer meters, {@code refresher.client.*} (Prometheus:
 * {@code refresher_client_reads_total} and so on).
 */
public final class RefresherClientMetrics implements MeterBinder {

  private final RefresherClient client;

  public RefresherClientMetrics(RefresherClient client) {
    this.client = client;
  }

  @Override
  public void bindTo(MeterRegistry registry) {
    counter(registry, "refresher.client.reads", "reads counted for the service", s -> s.access().recorded());
    counter(registry, "refresher.client.misses", "reads that found no value in Redis", s -> s.misses());
    counter(registry, "refresher.client.loads", "loader runs in this instance", s -> s.loaderRuns());
    counter(registry, "refresher.client.early.recomputations", "loader runs XFetch started early", s -> s.earlyRecomputations());
    counter(registry, "refresher.client.fallbacks", "loader runs after waiting in vain for another instance", s -> s.fallbacks());
    counter(registry, "refresher.client.degraded.loads", "loader runs because Redis failed", s -> s.degradedLoads());
    counter(registry, "refresher.client.reads.flushed", "counted reads written to Redis", s -> s.access().flushed());
    counter(registry, "refresher.client.reads.dropped", "counted reads dropped (too many keys pending)", s -> s.access().dropped());
    counter(registry, "refresher.client.reads.unconfirmed", "counted reads sent without an answer, not sent again", s -> s.access().unconfirmed());
    counter(registry, "refresher.client.flush.failures", "flushes that did not reach Redis in full", s -> s.access().flushFailures());
    Gauge.builder("refresher.client.pending.keys", client, c -> c.stats().access().pendingKeys())
        .description("keys with reads waiting for the next flush")
        .register(registry);
  }

  private void counter(MeterRegistry registry, String name, String description, ToDoubleFunction<RefresherClient.Stats> value) {
    FunctionCounter.builder(name, client, c -> value.applyAsDouble(c.stats()))
        .description(description)
        .register(registry);
  }
}
