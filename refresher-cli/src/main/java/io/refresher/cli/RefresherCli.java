package io.refresher.cli;

import io.refresher.client.admin.RefresherAdminException;
import java.io.PrintWriter;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * {@code refresher}: the registry as a file in Git ({@code apply}, {@code diff}), and the
 * operator's reads and actions ({@code get}, {@code refresh}, {@code prewarm}) through the admin
 * API. Exit status: {@link ExitCodes}.
 */
@Command(
    name = "refresher",
    mixinStandardHelpOptions = true,
    versionProvider = RefresherCli.Version.class,
    description = "Keeps Refresher's registry in a file, and reads and steers the service through its admin API.",
    footer = {
      "",
      "Exit status:",
      "  0  done",
      "  1  diff found differences",
      "  2  bad usage, or an invalid file (nothing was sent)",
      "  3  the service refused a call (4xx)",
      "  4  the service unreachable, or unavailable through the retries",
      "  5  refresh: a key failed or is not registered"
    },
    subcommands = {ApplyCommand.class, DiffCommand.class, GetCommand.class, RefreshCommand.class, PrewarmCommand.class})
public final class RefresherCli {

  public static void main(String[] args) {
    System.exit(execute(new PrintWriter(System.out, true), new PrintWriter(System.err, true), args));
  }

  /** Runs one command line, writing to {@code out} and {@code err}; returns the exit status. */
  public static int execute(PrintWriter out, PrintWriter err, String... args) {
    CommandLine cli = new CommandLine(new RefresherCli());
    cli.setOut(out);
    cli.setErr(err);
    cli.setExecutionExceptionHandler(
        (exception, command, parsed) -> {
          if (exception instanceof RegistrationsFile.InvalidFileException) {
            err.println(exception.getMessage());
            err.flush();
            return ExitCodes.USAGE;
          }
          if (exception instanceof RefresherAdminException refused) {
            err.println(refused.getMessage());
            err.flush();
            return refused.unavailable() ? ExitCodes.UNAVAILABLE : ExitCodes.REFUSED;
          }
          throw exception;
        });
    return cli.execute(args);
  }

  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      String version = RefresherCli.class.getPackage().getImplementationVersion();
      return new String[] {"refresher " + (version == null ? "(development build)" : version)};
    }
  }
}
