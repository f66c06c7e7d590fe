package io.refresher.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.refresher.client.admin.KeyRegistration;
import io.refresher.client.admin.RefresherAdmin;
import io.refresher.client.admin.TemplateRegistration;
import java.io.PrintWriter;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/** What apply and diff share: the registry as it is, and the plan printed for people or scripts. */
final class PlanOutput {

  static final ObjectMapper JSON = new ObjectMapper();

  private PlanOutput() {}

  /** Every template and registered key the service holds now. */
  static Registrations registered(RefresherAdmin admin) {
    return Registrations.of(
        admin.templates().stream().collect(Collectors.toMap(TemplateRegistration::name, TemplateRegistration::spec)),
        admin.keys("").stream().collect(Collectors.toMap(KeyRegistration::key, KeyRegistration::spec)));
  }

  /** The plan as lines ({@code + key a}, {@code ~ template b (ttl: ...)}) and a summary line. */
  static void print(PrintWriter out, Plan plan, String verdict) {
    plan.steps().forEach(step -> out.println(step.line()));
    out.println(summary(plan) + verdict);
    out.flush();
  }

  static String summary(Plan plan) {
    Map<Plan.Action, Long> counts =
        plan.steps().stream().collect(Collectors.groupingBy(Plan.Step::action, Collectors.counting()));
    return String.format(
        "%d to create, %d to replace, %d to delete, %d unchanged",
        counts.getOrDefault(Plan.Action.CREATE, 0L),
        counts.getOrDefault(Plan.Action.REPLACE, 0L),
        counts.getOrDefault(Plan.Action.DELETE, 0L),
        plan.unchangedTemplates() + plan.unchangedKeys());
  }

  /** The plan, and for an apply what became of it, as one JSON object. */
  static ObjectNode json(Plan plan, boolean applied, List<String> failures) {
    ObjectNode root = JSON.createObjectNode();
    ArrayNode steps = root.putArray("steps");
    for (Plan.Step step : plan.steps()) {
      ObjectNode node = steps.addObject();
      node.put("action", step.action().name().toLowerCase());
      node.put("kind", step.kind().name().toLowerCase());
      node.put("name", step.name());
      ArrayNode changes = node.putArray("changes");
      step.changes().forEach(changes::add);
    }
    ObjectNode unchanged = root.putObject("unchanged");
    unchanged.put("templates", plan.unchangedTemplates());
    unchanged.put("keys", plan.unchangedKeys());
    root.put("applied", applied);
    ArrayNode failed = root.putArray("failed");
    failures.forEach(failed::add);
    return root;
  }
}
