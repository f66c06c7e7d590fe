package io.refresher.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.refresher.client.admin.KeySpec;
import io.refresher.client.admin.TemplateSpec;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What {@code apply} does to make the registry match a file: templates first (keys may be covered
 * by them), then keys; with {@code --prune}, deletions of what the file does not name, keys before
 * templates. An entry equal to what is registered is left alone, so a second apply changes nothing.
 */
record Plan(List<Step> steps, int unchangedTemplates, int unchangedKeys) {

  enum Action {
    CREATE("+"),
    REPLACE("~"),
    DELETE("-");

    final String sign;

    Action(String sign) {
      this.sign = sign;
    }
  }

  enum Kind {
    TEMPLATE,
    KEY
  }

  /**
   * @param changes for a replacement, each field that differs ({@code ttl: PT5M -> PT10M})
   * @param template what to put, for a template's creation or replacement; else null
   * @param key what to put, for a key's creation or replacement; else null
   */
  record Step(Action action, Kind kind, String name, List<String> changes, TemplateSpec template, KeySpec key) {

    /** One line of the plan: {@code ~ key product:42 (ttl: PT5M -> PT10M)}. */
    String line() {
      String what = action.sign + " " + kind.name().toLowerCase() + " " + name;
      return changes.isEmpty() ? what : what + " (" + String.join("; ", changes) + ")";
    }
  }

  private static final ObjectMapper JSON = new ObjectMapper();
  /** Numbers compare by value: 42 read from YAML and 42 from the service's JSON are one value. */
  private static final Comparator<JsonNode> BY_VALUE =
      (a, b) -> a.isNumber() && b.isNumber() ? a.decimalValue().compareTo(b.decimalValue()) : (a.equals(b) ? 0 : 1);

  boolean empty() {
    return steps.isEmpty();
  }

  static Plan of(Registrations wanted, Registrations registered, boolean prune) {
    List<Step> steps = new ArrayList<>();
    int unchangedTemplates = 0;
    for (Map.Entry<String, TemplateSpec> entry : wanted.templates().entrySet()) {
      TemplateSpec now = registered.templates().get(entry.getKey());
      if (now == null) {
        steps.add(new Step(Action.CREATE, Kind.TEMPLATE, entry.getKey(), List.of(), entry.getValue(), null));
      } else {
        List<String> changes = changes(now, entry.getValue());
        if (changes.isEmpty()) {
          unchangedTemplates++;
        } else {
          steps.add(new Step(Action.REPLACE, Kind.TEMPLATE, entry.getKey(), changes, entry.getValue(), null));
        }
      }
    }
    int unchangedKeys = 0;
    for (Map.Entry<String, KeySpec> entry : wanted.keys().entrySet()) {
      KeySpec now = registered.keys().get(entry.getKey());
      if (now == null) {
        steps.add(new Step(Action.CREATE, Kind.KEY, entry.getKey(), List.of(), null, entry.getValue()));
      } else {
        List<String> changes = changes(now, entry.getValue());
        if (changes.isEmpty()) {
          unchangedKeys++;
        } else {
          steps.add(new Step(Action.REPLACE, Kind.KEY, entry.getKey(), changes, null, entry.getValue()));
        }
      }
    }
    if (prune) {
      registered.keys().keySet().stream()
          .filter(key -> !wanted.keys().containsKey(key))
          .forEach(key -> steps.add(new Step(Action.DELETE, Kind.KEY, key, List.of(), null, null)));
      registered.templates().keySet().stream()
          .filter(name -> !wanted.templates().containsKey(name))
          .forEach(name -> steps.add(new Step(Action.DELETE, Kind.TEMPLATE, name, List.of(), null, null)));
    }
    return new Plan(List.copyOf(steps), unchangedTemplates, unchangedKeys);
  }

  private static List<String> changes(TemplateSpec now, TemplateSpec wanted) {
    List<String> changes = new ArrayList<>();
    differs("pattern", now.pattern(), wanted.pattern(), changes);
    differs("source", now.source(), wanted.source(), changes);
    paramsDiffer(now.params(), wanted.params(), changes);
    ttlDiffers(wanted.ttl(), now.ttl(), changes);
    return changes;
  }

  private static List<String> changes(KeySpec now, KeySpec wanted) {
    List<String> changes = new ArrayList<>();
    differs("source", now.source(), wanted.source(), changes);
    paramsDiffer(now.params(), wanted.params(), changes);
    ttlDiffers(wanted.ttl(), now.ttl(), changes);
    differs("policy", policy(now), policy(wanted), changes);
    return changes;
  }

  /** The service's default policy is hot: a file that leaves it out means hot. */
  private static String policy(KeySpec spec) {
    return spec.policy() == null ? "hot" : spec.policy();
  }

  private static void ttlDiffers(java.time.Duration wanted, java.time.Duration now, List<String> changes) {
    if (!wanted.equals(now)) {
      changes.add("ttl: " + now + " -> " + wanted);
    }
  }

  private static void differs(String field, String now, String wanted, List<String> changes) {
    if (!Objects.equals(now, wanted)) {
      changes.add(field + ": " + now + " -> " + wanted);
    }
  }

  private static void paramsDiffer(Map<String, Object> now, Map<String, Object> wanted, List<String> changes) {
    JsonNode before = JSON.valueToTree(now);
    JsonNode after = JSON.valueToTree(wanted);
    if (!before.equals(BY_VALUE, after)) {
      changes.add("params: " + before + " -> " + after);
    }
  }
}
