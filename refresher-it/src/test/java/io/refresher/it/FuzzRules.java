package io.refresher.it;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.TextNode;
import io.refresher.testing.OpenApiContract;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * What the admin API must accept, as its documentation says it, for the fuzz test's model: the
 * OpenAPI document's schemas (key, template name, request bodies, with their patterns, bounds and
 * extensions), the sources it lists ({@code GET /v1/sources}), and the rules its descriptions state
 * in words (the parameter conversions, text without U+0000, the JSON and content-type rules). It
 * never asks the service's own validation classes: a disagreement between the two is a finding.
 */
final class FuzzRules {

  /** JSON as RFC 8259 has it: no trailing tokens, no comments, every name once; a leading BOM may be ignored (8.1). */
  private static final ObjectMapper STRICT =
      new ObjectMapper()
          .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
          .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
          // numbers as written: 1e400 is not infinity, 9007199254740993.0 not ...992
          .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);

  private static final byte[] BOM = {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF};

  /** A stored registration as the listing shows it, parameters in a comparable form. */
  record Registration(String source, Map<String, String> params, String ttl, String policy) {}

  /** A stored template as the listing shows it. */
  record Template(String pattern, String source, Map<String, String> params, String ttl) {}

  private final OpenApiContract contract;
  private final Map<String, Map<String, String>> sources;
  private final JsonNode keySchema;
  private final JsonNode templateNameSchema;
  private final JsonNode registrationSchema;
  private final JsonNode templateSchema;
  private final Duration minTtl;
  private final Duration maxTtl;

  /** @param sources each configured source's parameters (name → type), as {@code GET /v1/sources} lists them */
  FuzzRules(OpenApiContract contract, Map<String, Map<String, String>> sources) {
    this.contract = contract;
    this.sources = sources;
    this.keySchema = contract.schema("Key");
    this.templateNameSchema = contract.schema("TemplateName");
    this.registrationSchema = contract.schema("KeyRegistrationRequest");
    this.templateSchema = contract.schema("TemplateRequest");
    JsonNode ttl = registrationSchema.path("properties").path("ttl");
    this.minTtl = Duration.parse(ttl.path("x-minimum-duration").asText());
    this.maxTtl = Duration.parse(ttl.path("x-maximum-duration").asText());
  }

  Map<String, Map<String, String>> sources() {
    return sources;
  }

  boolean keyValid(String key) {
    return contract.valid(keySchema, TextNode.valueOf(key));
  }

  boolean templateNameValid(String name) {
    return contract.valid(templateNameSchema, TextNode.valueOf(name));
  }

  /**
   * {@code application/json}, with no parameter but {@code charset=utf-8} (any case, quoted or
   * not), given exactly once: what the document's 415 response says.
   */
  static boolean contentTypeIsJson(List<String> declared) {
    if (declared.size() != 1) {
      return false;
    }
    String[] parts = declared.get(0).split(";", -1);
    if (!parts[0].trim().toLowerCase(Locale.ROOT).equals("application/json")) {
      return false;
    }
    for (int i = 1; i < parts.length; i++) {
      String[] parameter = parts[i].split("=", 2);
      if (parameter.length != 2 || !parameter[0].trim().equalsIgnoreCase("charset")) {
        return false;
      }
      String value = parameter[1].trim();
      if (value.length() >= 2 && value.startsWith("\"") && value.endsWith("\"")) {
        value = value.substring(1, value.length() - 1);
      }
      if (!value.equalsIgnoreCase("utf-8")) {
        return false;
      }
    }
    return true;
  }

  /** The body as strict JSON; empty when it is not (or is not UTF-8). */
  static Optional<JsonNode> strictJson(byte[] body) {
    byte[] text = body;
    if (body.length >= 3 && Arrays.equals(body, 0, 3, BOM, 0, 3)) {
      text = Arrays.copyOfRange(body, 3, body.length);
    }
    try {
      JsonNode node = STRICT.readTree(text);
      return node == null || node.isMissingNode() ? Optional.empty() : Optional.of(node);
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  /** The registration a {@code PUT /v1/keys/{key}} body makes, when the body and key keep every documented rule. */
  Optional<Registration> registration(String key, JsonNode body) {
    if (!keyValid(key) || !contract.valid(registrationSchema, body)) {
      return Optional.empty();
    }
    Optional<String> ttl = ttl(body.path("ttl").asText());
    Optional<Map<String, String>> params = params(body.path("source").asText(), body.get("params"), Set.of());
    if (ttl.isEmpty() || params.isEmpty()) {
      return Optional.empty();
    }
    JsonNode policy = body.get("policy");
    String stored = policy == null || policy.isNull() ? "hot" : policy.asText();
    return Optional.of(new Registration(body.path("source").asText(), params.get(), ttl.get(), stored));
  }

  /**
   * The template a {@code PUT /v1/templates/{name}} body makes, given the placeholders of its
   * pattern (null when the pattern is one the documented rules refuse, or not one the test knows).
   */
  Optional<Template> template(String name, JsonNode body, Set<String> placeholders) {
    if (!templateNameValid(name) || !contract.valid(templateSchema, body) || placeholders == null) {
      return Optional.empty();
    }
    String source = body.path("source").asText();
    Map<String, String> declared = sources.get(source);
    if (declared == null || !declared.keySet().containsAll(placeholders)) {
      return Optional.empty();
    }
    Optional<String> ttl = ttl(body.path("ttl").asText());
    Optional<Map<String, String>> params = params(source, body.get("params"), placeholders);
    if (ttl.isEmpty() || params.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(new Template(body.path("pattern").asText(), source, params.get(), ttl.get()));
  }

  /** The TTL as stored ({@code Duration#toString}), when within the documented bounds. */
  private Optional<String> ttl(String text) {
    try {
      Duration ttl = Duration.parse(text);
      return ttl.compareTo(minTtl) < 0 || ttl.compareTo(maxTtl) > 0 ? Optional.empty() : Optional.of(ttl.toString());
    } catch (DateTimeParseException e) {
      return Optional.empty();
    }
  }

  /**
   * The parameters as stored: exactly those the source declares, less those the pattern supplies,
   * each converted as the document's ParamValues says.
   */
  private Optional<Map<String, String>> params(String source, JsonNode given, Set<String> supplied) {
    Map<String, String> declared = sources.get(source);
    if (declared == null) {
      return Optional.empty();
    }
    JsonNode values = given == null || given.isNull() ? STRICT.createObjectNode() : given;
    Set<String> expected = new TreeSet<>(declared.keySet());
    expected.removeAll(supplied);
    Set<String> names = new TreeSet<>();
    values.fieldNames().forEachRemaining(names::add);
    if (!names.equals(expected)) {
      return Optional.empty();
    }
    Map<String, String> stored = new TreeMap<>();
    for (Map.Entry<String, JsonNode> field : values.properties()) {
      Optional<String> value = convert(declared.get(field.getKey()), field.getValue());
      if (value.isEmpty()) {
        return Optional.empty();
      }
      stored.put(field.getKey(), value.get());
    }
    return Optional.of(stored);
  }

  /**
   * A parameter value as the document's ParamValues describes the conversion, in the comparable
   * form of {@link #comparable}. Numbers given to a string parameter are whole numbers here: the
   * text of any other number is not something the document fixes, and the generator makes none.
   */
  static Optional<String> convert(String type, JsonNode value) {
    if (value.isTextual() && !storable(value.asText())) {
      return Optional.empty();
    }
    switch (type) {
      case "string" -> {
        if (value.isTextual()) {
          return Optional.of("s:" + value.asText());
        }
        if (value.isBoolean()) {
          return Optional.of("s:" + value.asBoolean());
        }
        if (value.isIntegralNumber()) {
          return Optional.of("s:" + value.bigIntegerValue());
        }
        if (value.isNumber() && Double.isInfinite(value.doubleValue())) {
          return Optional.empty(); // "a finite number"
        }
        if (value.isNumber()) {
          throw new IllegalStateException("the generator gave a fractional number to a string parameter: " + value);
        }
        return Optional.empty();
      }
      case "long" -> {
        BigDecimal number = null;
        if (value.isNumber()) {
          number = value.decimalValue();
        } else if (value.isTextual()) {
          String text = trimmed(value.asText());
          if (text.matches("[-+]?[0-9]+")) {
            number = new BigDecimal(text);
          }
        }
        if (number == null || number.stripTrailingZeros().scale() > 0) {
          return Optional.empty();
        }
        BigInteger whole = number.toBigIntegerExact();
        boolean fits = whole.bitLength() < 64;
        return fits ? Optional.of("n:" + new BigDecimal(whole).toPlainString()) : Optional.empty();
      }
      case "double" -> {
        BigDecimal number = null;
        if (value.isNumber()) {
          number = value.decimalValue();
        } else if (value.isTextual()) {
          String text = trimmed(value.asText());
          if (text.matches("[-+]?([0-9]+\\.?[0-9]*|\\.[0-9]+)([eE][-+]?[0-9]+)?")) {
            number = new BigDecimal(text);
          }
        }
        if (number == null || Double.isInfinite(number.doubleValue())) {
          return Optional.empty();
        }
        return Optional.of("n:" + comparable(BigDecimal.valueOf(number.doubleValue())));
      }
      case "boolean" -> {
        if (value.isBoolean()) {
          return Optional.of("b:" + value.asBoolean());
        }
        if (value.isTextual() && (value.asText().equals("true") || value.asText().equals("false"))) {
          return Optional.of("b:" + value.asText());
        }
        return Optional.empty();
      }
      default -> throw new IllegalStateException("unknown parameter type " + type);
    }
  }

  /** A stored parameter value as the listing shows it, in the form {@link #convert} gives. */
  static String stored(JsonNode value) {
    if (value.isTextual()) {
      return "s:" + value.asText();
    }
    if (value.isBoolean()) {
      return "b:" + value.asBoolean();
    }
    if (value.isNumber()) {
      return "n:" + comparable(value.decimalValue());
    }
    return "?:" + value;
  }

  private static String comparable(BigDecimal number) {
    return number.signum() == 0 ? "0" : number.stripTrailingZeros().toPlainString();
  }

  /** The document: text "without U+0000 (no NUL, no unpaired surrogates)". */
  static boolean storable(String text) {
    return text.indexOf('\u0000') < 0 && !hasLoneSurrogate(text);
  }

  static boolean hasLoneSurrogate(String text) {
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
        i++;
      } else if (Character.isSurrogate(c)) {
        return true;
      }
    }
    return false;
  }

  /** "surrounding whitespace and control characters ignored", as the document says of numbers in strings. */
  private static String trimmed(String text) {
    return text.trim();
  }

  static byte[] utf8(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }
}
