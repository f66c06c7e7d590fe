package io.refresher.cli;

import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

@Command(
    name = "diff",
    description = {
      "Show what apply would change.",
      "Exit status 0 when nothing, 1 when something would change (as diff(1)): a pipeline can check that the registry is what Git says."
    },
    mixinStandardHelpOptions = true)
final class DiffCommand implements Callable<Integer> {

  @Spec CommandSpec spec;
  @Mixin Connection connection;

  @Mixin PlanOptions planned;

  @Override
  public Integer call() throws Exception {
    Plan plan = planned.plan(connection.admin());
    PrintWriter out = spec.commandLine().getOut();
    if (connection.json()) {
      out.println(PlanOutput.json(plan, false, List.of()).toPrettyString());
      out.flush();
    } else {
      PlanOutput.print(out, plan, "");
    }
    return plan.empty() ? ExitCodes.OK : ExitCodes.DIFFERENCES;
  }
}
