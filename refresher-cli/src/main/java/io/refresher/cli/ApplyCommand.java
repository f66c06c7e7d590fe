package io.refresher.cli;

import io.refresher.client.admin.RefresherAdmin;
import io.refresher.client.admin.RefresherAdminException;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

@Command(
    name = "apply",
    description = {
      "Make the registry match a file of templates and keys.",
      "Creates what is missing, replaces what differs, leaves what is equal alone (a second apply changes nothing); with --prune also deletes what the file does not name. Prints each change (+ create, ~ replace, - delete)."
    },
    mixinStandardHelpOptions = true)
final class ApplyCommand implements Callable<Integer> {

  @Spec CommandSpec spec;
  @Mixin Connection connection;

  @Mixin PlanOptions planned;

  @Option(names = "--dry-run", description = "Print the plan only; change nothing.")
  boolean dryRun;

  @Override
  public Integer call() throws Exception {
    RefresherAdmin admin = connection.admin();
    Plan plan = planned.plan(admin);
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    if (dryRun) {
      if (connection.json()) {
        out.println(PlanOutput.json(plan, false, List.of()).toPrettyString());
        out.flush();
      } else {
        PlanOutput.print(out, plan, " (dry run: nothing changed)");
      }
      return ExitCodes.OK;
    }
    List<String> failures = new ArrayList<>();
    for (Plan.Step step : plan.steps()) {
      try {
        run(admin, step);
        if (!connection.json()) {
          out.println(step.line());
          out.flush();
        }
      } catch (RefresherAdminException e) {
        if (e.unavailable()) {
          throw e; // the rest would fail the same way: stop, exit 4
        }
        failures.add(step.line() + ": " + e.getMessage());
        err.println("refused: " + step.line() + ": " + e.getMessage());
        err.flush();
      }
    }
    if (connection.json()) {
      out.println(PlanOutput.json(plan, true, failures).toPrettyString());
    } else {
      out.println(PlanOutput.summary(plan) + (failures.isEmpty() ? "" : "; " + failures.size() + " refused"));
    }
    out.flush();
    return failures.isEmpty() ? ExitCodes.OK : ExitCodes.REFUSED;
  }

  private static void run(RefresherAdmin admin, Plan.Step step) {
    switch (step.action()) {
      case CREATE, REPLACE -> {
        if (step.kind() == Plan.Kind.TEMPLATE) {
          admin.putTemplate(step.name(), step.template());
        } else {
          admin.putKey(step.name(), step.key());
        }
      }
      case DELETE -> {
        if (step.kind() == Plan.Kind.TEMPLATE) {
          admin.deleteTemplate(step.name());
        } else {
          admin.deleteKey(step.name(), false);
        }
      }
    }
  }
}
