package io.refresher.demo;

import io.dropwizard.core.cli.Command;
import io.dropwizard.core.setup.Bootstrap;
import net.sourceforge.argparse4j.impl.Arguments;
import net.sourceforge.argparse4j.inf.Namespace;
import net.sourceforge.argparse4j.inf.Subparser;

/**
 * {@code demo [--seconds N] [--readers N] [--rate N]}: starts embedded Redis and PostgreSQL, a sample
 * data set with slow queries, the real service, registers keys and drives simulated readers,
 * printing every second what the cache and the database see.
 *
 * <p>{@code demo --storm [--storm-at S] [--storm-keys N] [--storm-bound Q]}: the storm instead
 * ({@link StormDemo}): readers make N product keys hot with Zipf popularity, the database is bounded
 * to Q source queries per second, and after S seconds Redis is SIGKILLed and started again empty;
 * the demo prints the refill second by second and a summary.
 *
 * <p>{@code demo --changes}: refresh on change ({@link ChangesDemo}): a committed {@code UPDATE}
 * reaches Redis through PostgreSQL {@code NOTIFY} as a refresh while readers never miss, beside a
 * key invalidated the usual way (deleted on change).
 */
public final class DemoCommand extends Command {

  static final int RATE = 2000;
  static final int STORM_RATE = 4000;

  public DemoCommand() {
    super("demo", "Runs the service on embedded Redis and PostgreSQL with simulated readers");
  }

  @Override
  public void configure(Subparser subparser) {
    subparser
        .addArgument("--seconds")
        .type(Integer.class)
        .setDefault(0)
        .help("how long to run (0: until Ctrl-C; with --storm: until the refill is done)");
    subparser.addArgument("--readers").type(Integer.class).setDefault(8).help("reader threads");
    subparser
        .addArgument("--rate")
        .type(Integer.class)
        .help("reads per second, all readers together (default " + RATE + "; " + STORM_RATE + " with --storm)");
    subparser
        .addArgument("--storm")
        .action(Arguments.storeTrue())
        .help(
            "the storm: readers make --storm-keys product keys hot with Zipf popularity (product:r read in"
                + " proportion to 1/r), the database is bounded to --storm-bound source queries/s"
                + " (database.maxQueriesPerSecond), popularity is saved every 2 s, and after --storm-at seconds"
                + " Redis is SIGKILLed and started again empty; prints the refill every second (keys back,"
                + " keys back/s, share of the top 10% and the bottom 50% back, the database's source q/s"
                + " against the bound, GET /v1/prewarm) and a summary");
    subparser
        .addArgument("--changes")
        .action(Arguments.storeTrue())
        .help(
            "refresh on change: readers make products 1-4 hot; every second an UPDATE of one product's price"
                + " is committed, and its trigger's NOTIFY refreshes the key; prints how long each change took"
                + " to reach Redis, the misses while hot (none), and beside it a key deleted on change the"
                + " usual way with the misses and queries each deletion causes");
    subparser
        .addArgument("--feed")
        .choices("notify", "log")
        .setDefault("notify")
        .help(
            "with --changes: how changes reach the service: notify (a trigger's NOTIFY, the default) or log (change"
                + " capture from PostgreSQL's write-ahead log; the demo also stops the service, commits a change, starts"
                + " it again and shows the change arriving)");
    subparser
        .addArgument("--storm-at")
        .type(Integer.class)
        .choices(Arguments.range(5, 3600))
        .setDefault(20)
        .metavar("SECONDS")
        .help("with --storm: seconds of reading before Redis is killed");
    subparser
        .addArgument("--storm-keys")
        .type(Integer.class)
        .choices(Arguments.range(10, 100_000))
        .setDefault(1000)
        .metavar("N")
        .help("with --storm: product keys read");
    subparser
        .addArgument("--storm-bound")
        .type(Integer.class)
        .choices(Arguments.range(10, 500))
        .setDefault(100)
        .metavar("Q")
        .help("with --storm: the database's bound, source queries per second");
  }

  @Override
  public void run(Bootstrap<?> bootstrap, Namespace namespace) throws Exception {
    Integer rate = namespace.getInt("rate");
    if (namespace.getBoolean("storm")) {
      StormOptions options =
          new StormOptions(
              namespace.getInt("seconds"),
              namespace.getInt("readers"),
              rate == null ? STORM_RATE : rate,
              namespace.getInt("storm_keys"),
              namespace.getInt("storm_bound"),
              namespace.getInt("storm_at"));
      if (options.seconds() > 0 && options.seconds() <= options.lossAt()) {
        System.err.println("demo: --seconds must be larger than --storm-at (" + options.lossAt() + ")");
        System.exit(2);
      }
      StormReport report = new StormDemo(options, System.out).run();
      System.out.println(report.summary());
      System.exit(report.refillFinished() && report.hotMisses() == 0 && report.missesAfterBack() == 0 ? 0 : 1);
    }
    DemoOptions options =
        new DemoOptions(
            namespace.getInt("seconds"), namespace.getInt("readers"), rate == null ? RATE : rate, "log".equals(namespace.getString("feed")));
    if (namespace.getBoolean("changes")) {
      ChangesReport report = new ChangesDemo(options, System.out).run();
      System.out.println(report.summary());
      System.exit(report.allVisible() && report.hotMisses() == 0 && report.whileStoppedArrived() ? 0 : 1);
    }
    DemoReport report = new Demo(options, System.out).run();
    System.out.println(report.summary());
    // The embedded servers stop in shutdown hooks; Jetty's threads would keep the JVM alive.
    System.exit(report.hotKeyMisses() == 0 ? 0 : 1);
  }
}
