package io.refresher.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.refresher.client.admin.KeyRegistration;
import io.refresher.client.admin.TemplateRegistration;
import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

@Command(
    name = "get",
    description = "Read the hot set, the uncovered hot keys, the registered keys, the templates, the refill or the change log.",
    mixinStandardHelpOptions = true,
    subcommands = {GetCommand.Hot.class, GetCommand.Uncovered.class, GetCommand.Keys.class, GetCommand.Templates.class, GetCommand.Prewarm.class, GetCommand.Changes.class})
final class GetCommand {

  private static void json(CommandSpec spec, Object value) {
    PrintWriter out = spec.commandLine().getOut();
    out.println(PlanOutput.JSON.valueToTree(value).toPrettyString());
    out.flush();
  }

  @Command(name = "hot", description = "The hottest keys, hottest first: reads/s, TTR, next refresh.", mixinStandardHelpOptions = true)
  static final class Hot implements Callable<Integer> {
    @Spec CommandSpec spec;
    @Mixin Connection connection;

    @Option(names = "--limit", defaultValue = "20", description = "How many (default ${DEFAULT-VALUE}).")
    int limit;

    @Override
    public Integer call() {
      JsonNode hot = connection.admin().hot(limit);
      if (connection.json()) {
        json(spec, hot);
        return ExitCodes.OK;
      }
      Table table = new Table("KEY", "READS/S", "TTR", "NEXT REFRESH", "SOURCE", "TEMPLATE");
      hot.path("items")
          .forEach(
              item ->
                  table.row(
                      item.path("key").asText(),
                      String.format("%.1f", item.path("rate").asDouble()),
                      item.hasNonNull("ttrMillis") ? item.path("ttrMillis").asLong() + " ms" : null,
                      item.hasNonNull("nextRefreshAt") ? item.path("nextRefreshAt").asText() : null,
                      item.hasNonNull("source") ? item.path("source").asText() : null,
                      item.hasNonNull("template") ? item.path("template").asText() : null));
      table.print(spec.commandLine().getOut());
      return ExitCodes.OK;
    }
  }

  @Command(
      name = "uncovered",
      description = "Keys read often that nothing covers, with the template pattern that would cover them.",
      mixinStandardHelpOptions = true)
  static final class Uncovered implements Callable<Integer> {
    @Spec CommandSpec spec;
    @Mixin Connection connection;

    @Option(names = "--limit", defaultValue = "20", description = "How many (default ${DEFAULT-VALUE}, at most 100).")
    int limit;

    @Override
    public Integer call() {
      JsonNode uncovered = connection.admin().uncoveredHotKeys(limit);
      if (connection.json()) {
        json(spec, uncovered);
        return ExitCodes.OK;
      }
      Table table = new Table("KEY", "READS/S", "SUGGESTED PATTERN");
      uncovered.path("items")
          .forEach(
              item ->
                  table.row(
                      item.path("key").asText(),
                      String.format("%.1f", item.path("rate").asDouble()),
                      item.path("suggestedPattern").asText()));
      table.print(spec.commandLine().getOut());
      return ExitCodes.OK;
    }
  }

  @Command(name = "keys", description = "The registered keys, in key order.", mixinStandardHelpOptions = true)
  static final class Keys implements Callable<Integer> {
    @Spec CommandSpec spec;
    @Mixin Connection connection;

    @Option(names = "--prefix", defaultValue = "", description = "Only keys that start with this.")
    String prefix;

    @Override
    public Integer call() {
      List<KeyRegistration> keys = connection.admin().keys(prefix);
      if (connection.json()) {
        json(spec, keys.stream().map(k -> java.util.Map.of(
            "key", k.key(), "source", k.spec().source(), "params", k.spec().params(), "ttl", k.spec().ttl().toString(),
            "policy", k.spec().policy() == null ? "hot" : k.spec().policy())).toList());
        return ExitCodes.OK;
      }
      Table table = new Table("KEY", "SOURCE", "TTL", "POLICY", "PARAMS");
      keys.forEach(k -> table.row(k.key(), k.spec().source(), k.spec().ttl(), k.spec().policy(), PlanOutput.JSON.valueToTree(k.spec().params())));
      table.print(spec.commandLine().getOut());
      return ExitCodes.OK;
    }
  }

  @Command(name = "templates", description = "The templates, in name order.", mixinStandardHelpOptions = true)
  static final class Templates implements Callable<Integer> {
    @Spec CommandSpec spec;
    @Mixin Connection connection;

    @Override
    public Integer call() {
      List<TemplateRegistration> templates = connection.admin().templates();
      if (connection.json()) {
        json(spec, templates.stream().map(t -> java.util.Map.of(
            "name", t.name(), "pattern", t.spec().pattern(), "source", t.spec().source(), "params", t.spec().params(),
            "ttl", t.spec().ttl().toString())).toList());
        return ExitCodes.OK;
      }
      Table table = new Table("NAME", "PATTERN", "SOURCE", "TTL", "PARAMS");
      templates.forEach(t -> table.row(t.name(), t.spec().pattern(), t.spec().source(), t.spec().ttl(), PlanOutput.JSON.valueToTree(t.spec().params())));
      table.print(spec.commandLine().getOut());
      return ExitCodes.OK;
    }
  }

  @Command(name = "prewarm", description = "The last refill: state, done, left, failed, and the load bound.", mixinStandardHelpOptions = true)
  static final class Prewarm implements Callable<Integer> {
    @Spec CommandSpec spec;
    @Mixin Connection connection;

    @Override
    public Integer call() {
      return PrewarmCommand.print(spec, connection, connection.admin().prewarm());
    }
  }

  @Command(name = "changes", description = "Who changed what, newest first.", mixinStandardHelpOptions = true)
  static final class Changes implements Callable<Integer> {
    @Spec CommandSpec spec;
    @Mixin Connection connection;

    @Option(names = "--key", description = "Only this key's changes (template:<name> for a template's).")
    String key;

    @Option(names = "--limit", defaultValue = "50", description = "How many (default ${DEFAULT-VALUE}, at most 1000).")
    int limit;

    @Override
    public Integer call() {
      JsonNode changes = connection.admin().changes(key, limit);
      if (connection.json()) {
        json(spec, changes);
        return ExitCodes.OK;
      }
      Table table = new Table("AT", "ACTION", "KEY", "ROLE", "TOKEN ID", "REQUEST ID");
      changes.path("items")
          .forEach(
              item ->
                  table.row(
                      item.path("at").asText(),
                      item.path("action").asText(),
                      item.path("key").asText(),
                      item.path("actor").path("role").asText(null),
                      item.path("actor").path("tokenId").asText(null),
                      item.path("actor").path("requestId").asText(null)));
      table.print(spec.commandLine().getOut());
      return ExitCodes.OK;
    }
  }
}
