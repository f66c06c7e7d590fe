package io.refresher.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * The admin API's OpenAPI document as a test reads it: its operations, its schemas, and a check of
 * a JSON value against a schema. The check covers what the document uses: {@code $ref}, {@code
 * type}, {@code nullable}, {@code enum}, {@code anyOf}, {@code required}, {@code properties},
 * {@code additionalProperties}, {@code items}, {@code pattern}, {@code minLength}/{@code maxLength}
 * (in code points), {@code minimum}/{@code maximum}, {@code format: date-time}, and the document's
 * {@code x-max-utf8-bytes}.
 */
public final class OpenApiContract {

  private static final ObjectMapper JSON = new ObjectMapper();

  private final JsonNode document;
  private final Map<String, Pattern> patterns = new ConcurrentHashMap<>();

  private OpenApiContract(JsonNode document) {
    this.document = document;
  }

  public static OpenApiContract parse(String json) {
    try {
      return new OpenApiContract(JSON.readTree(json));
    } catch (IOException e) {
      throw new UncheckedIOException("the OpenAPI document is not JSON", e);
    }
  }

  public JsonNode document() {
    return document;
  }

  /** A schema of {@code components.schemas}. */
  public JsonNode schema(String name) {
    JsonNode schema = document.path("components").path("schemas").path(name);
    if (schema.isMissingNode()) {
      throw new IllegalArgumentException("no schema " + name + " in the document");
    }
    return schema;
  }

  /** The operations of a path template ({@code /v1/keys/{key}}), by method in upper case. */
  public Set<String> methods(String pathTemplate) {
    Set<String> methods = new TreeSet<>();
    document.path("paths").path(pathTemplate).fieldNames().forEachRemaining(name -> methods.add(name.toUpperCase(Locale.ROOT)));
    return methods;
  }

  /** The schema of the body the operation answers {@code status} with, if it declares one. */
  public Optional<JsonNode> responseSchema(String method, String pathTemplate, int status) {
    JsonNode response =
        resolve(document.path("paths").path(pathTemplate).path(method.toLowerCase(Locale.ROOT)).path("responses").path(String.valueOf(status)));
    JsonNode schema = response.path("content").path("application/json").path("schema");
    return schema.isMissingNode() ? Optional.empty() : Optional.of(schema);
  }

  /** Whether {@code value} is valid for {@code schema}. */
  public boolean valid(JsonNode schema, JsonNode value) {
    return violations(schema, value).isEmpty();
  }

  /** What makes {@code value} invalid for {@code schema}, each with its JSON path; empty when valid. */
  public List<String> violations(JsonNode schema, JsonNode value) {
    List<String> out = new ArrayList<>();
    check(schema, value, "$", out);
    return out;
  }

  /** Follows {@code $ref}s within the document. */
  public JsonNode resolve(JsonNode node) {
    JsonNode at = node;
    for (int hops = 0; at.has("$ref"); hops++) {
      if (hops > 20) {
        throw new IllegalStateException("$ref loop at " + node);
      }
      at = document.at(at.path("$ref").asText().substring(1));
    }
    return at;
  }

  private void check(JsonNode schemaOrRef, JsonNode value, String at, List<String> out) {
    JsonNode schema = resolve(schemaOrRef);
    if (value == null || value.isMissingNode()) {
      return;
    }
    if (value.isNull()) {
      if (!schema.path("nullable").asBoolean(false) && (schema.has("type") || schema.has("anyOf"))) {
        out.add(at + " is null");
      }
      return;
    }
    if (schema.has("anyOf")) {
      boolean any = false;
      for (JsonNode branch : schema.path("anyOf")) {
        any |= violations(branch, value).isEmpty();
      }
      if (!any) {
        out.add(at + " matches none of " + schema.path("anyOf"));
      }
    }
    if (schema.has("enum")) {
      boolean listed = false;
      for (JsonNode allowed : schema.path("enum")) {
        listed |= allowed.equals(value);
      }
      if (!listed) {
        out.add(at + " is not one of " + schema.path("enum"));
      }
    }
    switch (schema.path("type").asText("")) {
      case "object" -> checkObject(schema, value, at, out);
      case "array" -> {
        if (!value.isArray()) {
          out.add(at + " is not an array");
        } else if (schema.has("items")) {
          for (int i = 0; i < value.size(); i++) {
            check(schema.path("items"), value.get(i), at + "[" + i + "]", out);
          }
        }
      }
      case "string" -> checkString(schema, value, at, out);
      case "integer" -> {
        if (!value.isNumber() || value.decimalValue().stripTrailingZeros().scale() > 0) {
          out.add(at + " is not an integer");
        } else {
          checkRange(schema, value.decimalValue(), at, out);
        }
      }
      case "number" -> {
        if (!value.isNumber()) {
          out.add(at + " is not a number");
        } else {
          checkRange(schema, value.decimalValue(), at, out);
        }
      }
      case "boolean" -> {
        if (!value.isBoolean()) {
          out.add(at + " is not a boolean");
        }
      }
      default -> {
        // no type: any value
      }
    }
  }

  private void checkObject(JsonNode schema, JsonNode value, String at, List<String> out) {
    if (!value.isObject()) {
      out.add(at + " is not an object");
      return;
    }
    for (JsonNode required : schema.path("required")) {
      if (!value.has(required.asText())) {
        out.add(at + "." + required.asText() + " is required");
      }
    }
    JsonNode properties = schema.path("properties");
    JsonNode additional = schema.path("additionalProperties");
    for (Map.Entry<String, JsonNode> field : value.properties()) {
      if (properties.has(field.getKey())) {
        check(properties.path(field.getKey()), field.getValue(), at + "." + field.getKey(), out);
      } else if (additional.isBoolean() && !additional.asBoolean()) {
        out.add(at + "." + field.getKey() + " is not a known field");
      } else if (additional.isObject()) {
        check(additional, field.getValue(), at + "." + field.getKey(), out);
      }
    }
  }

  private void checkString(JsonNode schema, JsonNode value, String at, List<String> out) {
    if (!value.isTextual()) {
      out.add(at + " is not a string");
      return;
    }
    String text = value.asText();
    int length = text.codePointCount(0, text.length());
    if (schema.has("minLength") && length < schema.path("minLength").asInt()) {
      out.add(at + " is shorter than " + schema.path("minLength"));
    }
    if (schema.has("maxLength") && length > schema.path("maxLength").asInt()) {
      out.add(at + " is longer than " + schema.path("maxLength"));
    }
    if (schema.has("x-max-utf8-bytes") && text.getBytes(StandardCharsets.UTF_8).length > schema.path("x-max-utf8-bytes").asInt()) {
      out.add(at + " is over " + schema.path("x-max-utf8-bytes") + " UTF-8 bytes");
    }
    if (schema.has("pattern")) {
      Pattern pattern = patterns.computeIfAbsent(schema.path("pattern").asText(), OpenApiContract::ecma);
      if (!pattern.matcher(text).find()) {
        out.add(at + " does not match " + pattern);
      }
    }
    if ("date-time".equals(schema.path("format").asText())) {
      try {
        OffsetDateTime.parse(text);
      } catch (DateTimeParseException e) {
        out.add(at + " is not a date-time");
      }
    }
  }

  /**
   * A JSON Schema (ECMA-262) pattern for {@code java.util.regex}: the two read the document's
   * patterns alike but for {@code $}, which in Java also matches before a final line terminator
   * ({@code "cr\r"} would pass a pattern that refuses control characters), and in ECMA-262 only at
   * the end.
   */
  private static Pattern ecma(String pattern) {
    boolean anchoredAtEnd = pattern.endsWith("$") && !pattern.endsWith("\\$");
    return Pattern.compile(anchoredAtEnd ? pattern.substring(0, pattern.length() - 1) + "\\z" : pattern);
  }

  private static void checkRange(JsonNode schema, BigDecimal number, String at, List<String> out) {
    if (schema.has("minimum") && number.compareTo(schema.path("minimum").decimalValue()) < 0) {
      out.add(at + " is under " + schema.path("minimum"));
    }
    if (schema.has("maximum") && number.compareTo(schema.path("maximum").decimalValue()) > 0) {
      out.add(at + " is over " + schema.path("maximum"));
    }
  }
}
