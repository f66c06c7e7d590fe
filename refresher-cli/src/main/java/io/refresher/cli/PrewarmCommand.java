package io.refresher.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

@Command(
    name = "prewarm",
    description = {
      "Start a refill, or show where the last one stands.",
      "start: refill the popular keys missing from Redis, hottest first, within the load bound; status: where the last refill stands."
    },
    mixinStandardHelpOptions = true)
final class PrewarmCommand implements Callable<Integer> {

  @Spec CommandSpec spec;
  @Mixin Connection connection;

  @Parameters(index = "0", description = "start or status")
  Action action;

  enum Action {
    start,
    status
  }

  @Override
  public Integer call() {
    JsonNode answer = action == Action.start ? connection.admin().startPrewarm() : connection.admin().prewarm();
    return print(spec, connection, answer);
  }

  static int print(CommandSpec spec, Connection connection, JsonNode answer) {
    PrintWriter out = spec.commandLine().getOut();
    if (connection.json()) {
      out.println(answer.toPrettyString());
      out.flush();
      return ExitCodes.OK;
    }
    JsonNode prewarm = answer.has("prewarm") ? answer.path("prewarm") : answer;
    Table table = new Table("STATE", "TRIGGER", "DONE", "LEFT", "FAILED", "STARTED", "ESTIMATED END");
    table.row(
        prewarm.path("state").asText(null),
        prewarm.path("trigger").asText(null),
        prewarm.path("done").asText(null),
        prewarm.path("left").asText(null),
        prewarm.path("failed").asText(null),
        prewarm.path("startedAt").asText(null),
        prewarm.path("estimatedEndAt").asText(null));
    table.print(out);
    return ExitCodes.OK;
  }
}
