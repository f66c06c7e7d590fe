package io.refresher.cli;

import io.refresher.client.admin.RefresherAdmin;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/** The file apply and diff compare the registry with, and whether what it leaves out goes. */
final class PlanOptions {

  @Option(names = {"-f", "--file"}, required = true, description = "The registrations file (YAML or JSON).")
  Path file;

  @Option(names = "--prune", description = "Also delete the registered keys and templates the file does not name.")
  boolean prune;

  /** Reads the file (nothing is sent if it is invalid), then the registry, and compares them. */
  Plan plan(RefresherAdmin admin) throws RegistrationsFile.InvalidFileException {
    Registrations wanted = RegistrationsFile.read(file);
    return Plan.of(wanted, PlanOutput.registered(admin), prune);
  }
}
