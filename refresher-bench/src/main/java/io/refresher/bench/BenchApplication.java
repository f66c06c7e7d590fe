package io.refresher.bench;

import com.codahale.metrics.MetricRegistry;
import io.dropwizard.core.setup.Environment;
import org.eclipse.jetty.server.Server;
import io.refresher.RefresherApplication;
import io.refresher.config.RefresherConfiguration;

/** The service, keeping a handle on its metrics for the benchmark's report. */
final class BenchApplication extends RefresherApplication {

  private volatile MetricRegistry metrics;
  private volatile Server server;

  @Override
  public void run(RefresherConfiguration config, Environment environment) throws Exception {
    super.run(config, environment);
    metrics = environment.metrics();
    environment.lifecycle().addServerLifecycleListener(started -> server = started);
  }

  /** Stops the service (its managed parts in reverse order) before the embedded servers go. */
  void stopServer() throws Exception {
    if (server != null) {
      server.stop();
    }
  }

  MetricRegistry metrics() {
    return metrics;
  }
}
