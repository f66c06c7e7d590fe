package io.refresher.demo;

import com.codahale.metrics.MetricRegistry;
import io.dropwizard.core.setup.Bootstrap;
import io.dropwizard.core.setup.Environment;
import org.eclipse.jetty.server.Server;
import io.refresher.RefresherApplication;
import io.refresher.config.RefresherConfiguration;

/** The service plus the {@code demo} command: {@code java -jar refresher-demo.jar demo}. */
public class DemoApplication extends RefresherApplication {

  public static void main(String[] args) throws Exception {
    new DemoApplication().run(args);
  }

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

  @Override
  public void initialize(Bootstrap<RefresherConfiguration> bootstrap) {
    super.initialize(bootstrap);
    bootstrap.addCommand(new DemoCommand());
  }
}
