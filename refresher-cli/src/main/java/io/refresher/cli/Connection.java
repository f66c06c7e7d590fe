package io.refresher.cli;

import io.refresher.client.admin.RefresherAdmin;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/**
 * Where the service is and the token to present: flags, else the environment
 * ({@code REFRESHER_URL}, {@code REFRESHER_ADMIN_TOKEN} or {@code REFRESHER_ADMIN_TOKEN_FILE}, as
 * the service itself reads them). A token on the command line is visible to {@code ps}: prefer
 * the environment or a file.
 */
final class Connection {

  @Spec(Spec.Target.MIXEE)
  CommandSpec spec;

  @Option(
      names = "--server",
      defaultValue = "${env:REFRESHER_URL:-http://127.0.0.1:8080}",
      description = "The service's application port (default: $REFRESHER_URL, else ${DEFAULT-VALUE}).")
  URI server;

  @Option(names = "--token", description = "An admin token, or a read token for reads (default: $REFRESHER_ADMIN_TOKEN).")
  String token;

  @Option(names = "--token-file", description = "A file holding the token (default: $REFRESHER_ADMIN_TOKEN_FILE).")
  Path tokenFile;

  @Option(
      names = {"-o", "--output"},
      defaultValue = "table",
      description = "table (for people) or json (for scripts). Default: ${DEFAULT-VALUE}.")
  Output output;

  @Option(
      names = "--max-retries",
      defaultValue = "5",
      description = "Retries of a call answered 503 (after its Retry-After) or not answered. Default: ${DEFAULT-VALUE}.")
  int maxRetries;

  enum Output {
    table,
    json
  }

  RefresherAdmin admin() {
    return RefresherAdmin.builder(server).token(token()).maxRetries(maxRetries).build();
  }

  boolean json() {
    return output == Output.json;
  }

  private String token() {
    if (token != null && !token.isBlank()) {
      return token;
    }
    String fromEnvironment = System.getenv("REFRESHER_ADMIN_TOKEN");
    if (tokenFile == null && fromEnvironment != null && !fromEnvironment.isBlank()) {
      return fromEnvironment;
    }
    Path file = tokenFile;
    if (file == null && System.getenv("REFRESHER_ADMIN_TOKEN_FILE") != null) {
      file = Path.of(System.getenv("REFRESHER_ADMIN_TOKEN_FILE"));
    }
    if (file == null) {
      throw new ParameterException(spec.commandLine(), "no token: set REFRESHER_ADMIN_TOKEN (or REFRESHER_ADMIN_TOKEN_FILE), or pass --token-file");
    }
    try {
      return Files.readString(file).strip();
    } catch (IOException e) {
      throw new ParameterException(spec.commandLine(), "the token file " + file + " cannot be read (" + e.getClass().getSimpleName() + ")");
    }
  }
}
