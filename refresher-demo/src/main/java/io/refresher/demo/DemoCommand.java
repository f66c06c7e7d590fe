package io.refresher.demo;

import io.dropwizard.core.cli.Command;
import io.dropwizard.core.setup.Bootstrap;
import net.sourceforge.argparse4j.inf.Namespace;
import net.sourceforge.argparse4j.inf.Subparser;

/**
 * {@code demo [--seconds N] [--readers N] [--rate N]}: starts embedded Redis and PostgreSQL, a sample
 * data set with slow queries, the real service, registers keys and drives simulated readers,
 * printing every second what the cache and the database see.
 */
public final class DemoCommand extends Command {

  public DemoCommand() {
    super("demo", "Runs the service on embedded Redis and PostgreSQL with simulated readers");
  }

  @Override
  public void configure(Subparser subparser) {
    subparser
        .addArgument("--seconds")
        .type(Integer.class)
        .setDefault(0)
        .help("how long to run (0: until Ctrl-C)");
    subparser.addArgument("--readers").type(Integer.class).setDefault(8).help("reader threads");
    subparser.addArgument("--rate").type(Integer.class).setDefault(2000).help("reads per second, all readers together");
  }

  @Override
  public void run(Bootstrap<?> bootstrap, Namespace namespace) throws Exception {
    DemoOptions options =
        new DemoOptions(namespace.getInt("seconds"), namespace.getInt("readers"), namespace.getInt("rate"));
    DemoReport report = new Demo(options, System.out).run();
    System.out.println(report.summary());
    // The embedded servers stop in shutdown hooks; Jetty's threads would keep the JVM alive.
    System.exit(report.hotKeyMisses() == 0 ? 0 : 1);
  }
}
