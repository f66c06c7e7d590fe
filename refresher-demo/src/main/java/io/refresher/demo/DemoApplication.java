package io.refresher.demo;

import io.dropwizard.core.setup.Bootstrap;
import io.refresher.RefresherApplication;
import io.refresher.config.RefresherConfiguration;

/** The service plus the {@code demo} command: {@code java -jar refresher-demo.jar demo}. */
public class DemoApplication extends RefresherApplication {

  public static void main(String[] args) throws Exception {
    new DemoApplication().run(args);
  }

  @Override
  public void initialize(Bootstrap<RefresherConfiguration> bootstrap) {
    super.initialize(bootstrap);
    bootstrap.addCommand(new DemoCommand());
  }
}
