package io.refresher.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

@Command(
    name = "refresh",
    description = {
      "Refresh keys now.",
      "The data changed: refresh instead of deleting, which would be a stampede.",
      "  refresher refresh product:42 product:43",
      "  refresher refresh --template products --param id=42 --param id=43   (one --param per key)",
      "Exit status 5 when a key failed or is not registered."
    },
    mixinStandardHelpOptions = true)
final class RefreshCommand implements Callable<Integer> {

  @Spec CommandSpec spec;
  @Mixin Connection connection;

  @Parameters(arity = "0..*", paramLabel = "KEY", description = "Keys to refresh.")
  List<String> keys = new ArrayList<>();

  @Option(names = "--template", description = "A template: refresh the keys its --param values name.")
  String template;

  @Option(names = "--param", paramLabel = "NAME=VALUE[,NAME=VALUE...]", description = "With --template: one key's placeholder values.")
  List<String> params = new ArrayList<>();

  @Override
  public Integer call() {
    if ((template == null) == keys.isEmpty()) {
      throw new ParameterException(spec.commandLine(), "name keys, or a --template with --param values, not both");
    }
    if (template != null && params.isEmpty()) {
      throw new ParameterException(spec.commandLine(), "--template needs at least one --param (one per key)");
    }
    JsonNode results =
        template == null ? connection.admin().refresh(keys) : connection.admin().refreshTemplate(template, parse(params));
    PrintWriter out = spec.commandLine().getOut();
    if (connection.json()) {
      out.println(results.toPrettyString());
      out.flush();
    } else {
      Table table = new Table("KEY", "OUTCOME", "DETAIL");
      results.path("results")
          .forEach(
              result ->
                  table.row(
                      result.path("key").asText(),
                      result.path("outcome").asText(),
                      result.hasNonNull("error") ? result.path("error").asText() : result.path("reason").asText(null)));
      table.print(out);
    }
    for (JsonNode result : results.path("results")) {
      String outcome = result.path("outcome").asText();
      if (outcome.equals("failed") || outcome.equals("not_registered")) {
        return ExitCodes.NOT_ALL_REFRESHED;
      }
    }
    return ExitCodes.OK;
  }

  private List<Map<String, Object>> parse(List<String> values) {
    List<Map<String, Object>> keys = new ArrayList<>();
    for (String value : values) {
      Map<String, Object> one = new LinkedHashMap<>();
      for (String pair : value.split(",")) {
        int equals = pair.indexOf('=');
        if (equals <= 0) {
          throw new ParameterException(spec.commandLine(), "--param " + value + ": each part must be NAME=VALUE");
        }
        one.put(pair.substring(0, equals), pair.substring(equals + 1));
      }
      keys.add(one);
    }
    return keys;
  }
}
