package io.refresher.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.refresher.client.admin.KeySpec;
import io.refresher.client.admin.TemplateSpec;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reads a registrations file: YAML (or JSON) with two maps, {@code templates} by name and {@code
 * keys} by key, each entry as the admin API takes it:
 *
 * <pre>
 * templates:
 *   products:
 *     pattern: "product:{id}"
 *     source: product-by-id
 *     ttl: PT10M
 * keys:
 *   "time:now":
 *     source: server-time
 *     ttl: PT10S
 *     policy: always
 * </pre>
 *
 * Every mistake is reported at once, each with its place ({@code keys."time:now".ttl}), before
 * anything is sent: an unknown field, a missing one, a TTL that is not an ISO-8601 duration.
 */
final class RegistrationsFile {

  static final Set<String> TOP = Set.of("templates", "keys");
  static final Set<String> TEMPLATE_FIELDS = Set.of("pattern", "source", "params", "ttl");
  static final Set<String> KEY_FIELDS = Set.of("source", "params", "ttl", "policy");

  /** The file is unreadable or invalid; the message lists every problem. */
  static final class InvalidFileException extends Exception {
    InvalidFileException(String message) {
      super(message);
    }
  }

  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  private RegistrationsFile() {}

  static Registrations read(Path file) throws InvalidFileException {
    String text;
    try {
      text = Files.readString(file);
    } catch (NoSuchFileException e) {
      throw new InvalidFileException(file + ": no such file");
    } catch (IOException e) {
      throw new InvalidFileException(file + ": cannot be read (" + e.getMessage() + ")");
    }
    return parse(file.toString(), text);
  }

  static Registrations parse(String name, String text) throws InvalidFileException {
    JsonNode root;
    try {
      root = YAML.readTree(text);
    } catch (IOException e) {
      throw new InvalidFileException(name + ": not valid YAML: " + e.getMessage());
    }
    List<String> problems = new ArrayList<>();
    Map<String, TemplateSpec> templates = new LinkedHashMap<>();
    Map<String, KeySpec> keys = new LinkedHashMap<>();
    if (root == null || root.isMissingNode() || root.isNull()) {
      return Registrations.of(templates, keys); // an empty file: an empty registry
    }
    if (!root.isObject()) {
      throw new InvalidFileException(name + ": must be a map with 'templates' and 'keys'");
    }
    unknownFields(root, TOP, "", problems);
    entries(root.path("templates"), "templates", problems)
        .forEach((templateName, node) -> template(templateName, node, problems).ifPresent(t -> templates.put(templateName, t)));
    entries(root.path("keys"), "keys", problems)
        .forEach((key, node) -> key(key, node, problems).ifPresent(k -> keys.put(key, k)));
    if (!problems.isEmpty()) {
      throw new InvalidFileException(name + ": " + problems.size() + " problem(s):\n  " + String.join("\n  ", problems));
    }
    return Registrations.of(templates, keys);
  }

  private static Map<String, JsonNode> entries(JsonNode map, String where, List<String> problems) {
    Map<String, JsonNode> entries = new LinkedHashMap<>();
    if (map.isMissingNode() || map.isNull()) {
      return entries;
    }
    if (!map.isObject()) {
      problems.add(where + ": must be a map (by " + (where.equals("keys") ? "key" : "name") + ")");
      return entries;
    }
    map.fields().forEachRemaining(field -> entries.put(field.getKey(), field.getValue()));
    return entries;
  }

  private static java.util.Optional<TemplateSpec> template(String name, JsonNode node, List<String> problems) {
    String at = "templates." + quoted(name);
    if (!node.isObject()) {
      problems.add(at + ": must be a map of " + TEMPLATE_FIELDS);
      return java.util.Optional.empty();
    }
    unknownFields(node, TEMPLATE_FIELDS, at + ".", problems);
    String pattern = text(node, "pattern", at, problems);
    String source = text(node, "source", at, problems);
    Duration ttl = ttl(node, at, problems);
    Map<String, Object> params = params(node, at, problems);
    if (pattern == null || source == null || ttl == null || params == null) {
      return java.util.Optional.empty();
    }
    return java.util.Optional.of(new TemplateSpec(pattern, source, params, ttl));
  }

  private static java.util.Optional<KeySpec> key(String key, JsonNode node, List<String> problems) {
    String at = "keys." + quoted(key);
    if (!node.isObject()) {
      problems.add(at + ": must be a map of " + KEY_FIELDS);
      return java.util.Optional.empty();
    }
    unknownFields(node, KEY_FIELDS, at + ".", problems);
    String source = text(node, "source", at, problems);
    Duration ttl = ttl(node, at, problems);
    Map<String, Object> params = params(node, at, problems);
    String policy = null;
    if (node.has("policy")) {
      policy = node.get("policy").asText();
      if (!policy.equals("hot") && !policy.equals("always")) {
        problems.add(at + ".policy: must be hot or always");
        return java.util.Optional.empty();
      }
    }
    if (source == null || ttl == null || params == null) {
      return java.util.Optional.empty();
    }
    return java.util.Optional.of(new KeySpec(source, params, ttl, policy));
  }

  private static String text(JsonNode node, String field, String at, List<String> problems) {
    JsonNode value = node.path(field);
    if (!value.isTextual() || value.asText().isBlank()) {
      problems.add(at + "." + field + ": " + (value.isMissingNode() ? "missing" : "must be a non-empty text"));
      return null;
    }
    return value.asText();
  }

  private static Duration ttl(JsonNode node, String at, List<String> problems) {
    String text = text(node, "ttl", at, problems);
    if (text == null) {
      return null;
    }
    try {
      return Duration.parse(text);
    } catch (DateTimeParseException e) {
      problems.add(at + ".ttl: must be an ISO-8601 duration such as PT5M, not '" + text + "'");
      return null;
    }
  }

  private static Map<String, Object> params(JsonNode node, String at, List<String> problems) {
    JsonNode params = node.path("params");
    if (params.isMissingNode() || params.isNull()) {
      return Map.of();
    }
    if (!params.isObject()) {
      problems.add(at + ".params: must be a map of parameter name to value");
      return null;
    }
    return YAML.convertValue(params, new com.fasterxml.jackson.core.type.TypeReference<Map<String, Object>>() {});
  }

  private static void unknownFields(JsonNode node, Set<String> known, String at, List<String> problems) {
    for (Iterator<String> names = node.fieldNames(); names.hasNext(); ) {
      String name = names.next();
      if (!known.contains(name)) {
        problems.add(at + name + ": unknown field (known: " + String.join(", ", new java.util.TreeSet<>(known)) + ")");
      }
    }
  }

  private static String quoted(String name) {
    return name.matches("[A-Za-z0-9_-]+") ? name : "\"" + name + "\"";
  }
}
