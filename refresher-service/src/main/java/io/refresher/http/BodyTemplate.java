package io.refresher.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A {@code POST} body template as a JSON tree, compiled once: a string that is exactly {@code
 * "{p}"} becomes the parameter's typed JSON value ({@code 42}, {@code true}, {@code "text"}); a
 * string with placeholders among text gets the values' text in place; everything else is copied.
 * The body is always built as a tree and written by Jackson, so a value can hold quotes,
 * backslashes or braces and still be one JSON string: it can never close the string or add a field.
 */
final class BodyTemplate {

  private sealed interface Node {}

  private record Fixed(JsonNode value) implements Node {}

  private record Whole(String param) implements Node {}

  private record Text(TextTemplate template) implements Node {}

  private record Fields(Map<String, Node> fields) implements Node {}

  private record Items(List<Node> items) implements Node {}

  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  private final Node root;
  private final Set<String> placeholders = new LinkedHashSet<>();

  /** @throws IllegalArgumentException when a string's placeholder syntax is broken */
  BodyTemplate(JsonNode template) {
    this.root = compile(template);
  }

  Set<String> placeholders() {
    return placeholders;
  }

  private Node compile(JsonNode node) {
    if (node.isTextual()) {
      TextTemplate template = TextTemplate.parse(node.textValue());
      placeholders.addAll(template.placeholders());
      if (template.wholePlaceholder().isPresent()) {
        return new Whole(template.wholePlaceholder().get());
      }
      return template.placeholders().isEmpty() ? new Fixed(NODES.textNode(String.join("", template.literals()))) : new Text(template);
    }
    if (node.isObject()) {
      Map<String, Node> fields = new LinkedHashMap<>();
      for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> field = it.next();
        fields.put(field.getKey(), compile(field.getValue()));
      }
      return new Fields(fields);
    }
    if (node.isArray()) {
      List<Node> items = new ArrayList<>();
      for (JsonNode item : node) {
        items.add(compile(item));
      }
      return new Items(items);
    }
    return new Fixed(node.deepCopy());
  }

  /** The body for these (typed) parameter values. */
  JsonNode render(Map<String, Object> values) throws TemplateValueException {
    return render(root, values);
  }

  private static JsonNode render(Node node, Map<String, Object> values) throws TemplateValueException {
    if (node instanceof Fixed fixed) {
      return fixed.value().deepCopy();
    }
    if (node instanceof Whole whole) {
      return typed(whole.param(), values.get(whole.param()));
    }
    if (node instanceof Text text) {
      return NODES.textNode(text.template().render(literal -> literal, name -> ParamText.of(name, values.get(name))));
    }
    if (node instanceof Fields fields) {
      ObjectNode object = NODES.objectNode();
      for (Map.Entry<String, Node> field : fields.fields().entrySet()) {
        object.set(field.getKey(), render(field.getValue(), values));
      }
      return object;
    }
    ArrayNode array = NODES.arrayNode();
    for (Node item : ((Items) node).items()) {
      array.add(render(item, values));
    }
    return array;
  }

  private static JsonNode typed(String name, Object value) throws TemplateValueException {
    if (value instanceof List<?> values) {
      // a batch request's parameter: the keys' values, as one JSON array
      ArrayNode array = NODES.arrayNode();
      for (Object one : values) {
        array.add(typed(name, one));
      }
      return array;
    }
    if (value instanceof Long number) {
      return NODES.numberNode(number);
    }
    if (value instanceof Double number) {
      return NODES.numberNode(number);
    }
    if (value instanceof Boolean flag) {
      return NODES.booleanNode(flag);
    }
    return NODES.textNode(ParamText.of(name, value));
  }
}
