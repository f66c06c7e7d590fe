package io.refresher.demo;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.util.Arrays;
import java.util.List;

/**
 * One value set over {@code demo.yml} in the generated configuration, at a path of field names
 * ({@code database}, {@code maxQueriesPerSecond}); missing blocks are created.
 */
record ConfigValue(List<String> path, Object value) {

  ConfigValue {
    path = List.copyOf(path);
    if (path.isEmpty()) {
      throw new IllegalArgumentException("empty configuration path");
    }
  }

  /** A value at a path of field names, e.g. {@code of(100, "database", "maxQueriesPerSecond")}. */
  static ConfigValue of(Object value, String... path) {
    return new ConfigValue(Arrays.asList(path), value);
  }

  /** The dotted name, as docs/prewarm.md and config.yml spell it. */
  String name() {
    return String.join(".", path);
  }

  /** The YAML text with the values set (comments are not kept). */
  static String apply(String yaml, List<ConfigValue> values) throws IOException {
    ObjectMapper mapper = new ObjectMapper(new YAMLFactory());
    ObjectNode root = (ObjectNode) mapper.readTree(yaml);
    for (ConfigValue value : values) {
      ObjectNode block = root;
      for (String field : value.path.subList(0, value.path.size() - 1)) {
        JsonNode child = block.get(field);
        block = child instanceof ObjectNode object ? object : block.putObject(field);
      }
      block.set(value.path.get(value.path.size() - 1), mapper.valueToTree(value.value));
    }
    return mapper.writeValueAsString(root);
  }
}
