package io.refresher.bench.throughput;

import com.codahale.metrics.Timer;
import io.dropwizard.core.setup.Bootstrap;
import io.refresher.RefresherApplication;
import io.refresher.config.RefresherConfiguration;

/** The service as it runs in production, with its lag timer recorded for the benchmark's steps. */
final class BenchApplication extends RefresherApplication {

  private final LagRecorder lag = new LagRecorder();

  LagRecorder lag() {
    return lag;
  }

  @Override
  public void initialize(Bootstrap<RefresherConfiguration> bootstrap) {
    super.initialize(bootstrap);
    // Registered first, so the service's metrics.timer("refresher.refresh.lag", ...) finds it.
    bootstrap.getMetricRegistry().register("refresher.refresh.lag", new Timer(lag));
  }
}
