package io.refresher.it;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.refresher.testing.TestApp;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Tuple;
import net.jqwik.api.Tuple.Tuple2;

/**
 * The generators of the admin API fuzz test: keys (Unicode, control characters, slashes, dots,
 * percent signs, the reserved prefix, 100 KB) and the ways to write them in a path; request bodies
 * drawn from the OpenAPI document's schemas and the listed sources, then mutated field by field
 * (missing, extra, duplicated, of the wrong type, 100 KB strings, hostile text) and byte by byte
 * (truncated, trailing data, comments, a BOM, invalid UTF-8, sizes around and far over the cap);
 * tokens and content types, right and wrong.
 */
final class FuzzInputs {

  private FuzzInputs() {}

  private static final ObjectMapper JSON = new ObjectMapper();

  /** Template keys start with this, and generated keys never do, so that which template covers a key stays obvious. */
  static final String TEMPLATE_PREFIX = "fuzztpl|";

  static final String HUNDRED_KB = "h".repeat(100 * 1024);

  // ---------------------------------------------------------------------------------------------
  // Keys

  /** Keys that come back often, so that keys are replaced, read and deleted, not only created. */
  static final List<String> COMMON_KEYS =
      List.of(
          "fz:1", "fz:2", "fz:3", "product:42", "a/b", "x/refresh", "ü:kéy", "😀", "a b", "a;b", "100%", "q?x", "h#x",
          "back\\slash", ".hidden", "...", "a/./b", "a/../b", "./x", "x/..", "tr/", "%2F", "%2e%2e", "pfx_1", "pfxa1",
          "€".repeat(170), "\u00a0nbsp", "tab\u200bzero-width", "<script>", "' OR 1=1 --", "x".repeat(512));

  /** Keys the documented rules refuse (some of them the HTTP server already refuses). */
  static final List<String> BAD_KEYS =
      List.of(
          ".", "..", "refresher:x", "refresher:", "a\u0000b", "a\tb", "line\nbreak", "cr\r", "\u2028", "\u2029",
          "c1\u0085", "del\u007f", "\u001f", "€".repeat(171), "y".repeat(513), HUNDRED_KB);

  static Arbitrary<String> keys() {
    Arbitrary<String> ascii = Arbitraries.strings().ascii().ofMinLength(1).ofMaxLength(24);
    Arbitrary<String> unicode = Arbitraries.strings().all().ofMinLength(1).ofMaxLength(16);
    Arbitrary<String> pieces =
        Arbitraries.of("/", ".", "..", "%", "%2F", ":", ";", "?", "#", "refresh", "a", "é", "😀", " ", "\\", "+", "&", "=", "~")
            .list()
            .ofMinSize(1)
            .ofMaxSize(6)
            .map(parts -> String.join("", parts));
    return Arbitraries.frequencyOf(
            weighted(6, Arbitraries.of(COMMON_KEYS)),
            weighted(2, Arbitraries.of(BAD_KEYS)),
            weighted(2, ascii),
            weighted(2, unicode),
            weighted(2, pieces))
        // a lone surrogate has no UTF-8 form: it cannot be written in a path at all
        .filter(key -> !FuzzRules.hasLoneSurrogate(key))
        .filter(key -> !key.startsWith(TEMPLATE_PREFIX));
  }

  private static <T> Tuple2<Integer, Arbitrary<? extends T>> weighted(int weight, Arbitrary<? extends T> arbitrary) {
    return Tuple.of(weight, arbitrary);
  }

  /** How a key is written in a path; all but {@link #RAW_SEMICOLON} address the key exactly (README, "Keys in paths"). */
  enum Encoding {
    /** Every reserved character percent-encoded ({@code URLEncoder}, spaces as %20). */
    FULL,
    /** Only what the README says must be encoded; slashes as-is where it allows. */
    MINIMAL,
    /** As FULL, with lower-case hex digits. */
    LOWER_HEX,
    /** Every byte percent-encoded, letters included. */
    EVERY_BYTE,
    /** As MINIMAL but a {@code ;} left raw, which the README says is refused. */
    RAW_SEMICOLON
  }

  static Arbitrary<Encoding> encodings() {
    return Arbitraries.frequency(
        weightedValue(6, Encoding.FULL), weightedValue(3, Encoding.MINIMAL), weightedValue(1, Encoding.LOWER_HEX), weightedValue(1, Encoding.EVERY_BYTE), weightedValue(1, Encoding.RAW_SEMICOLON));
  }

  private static <T> Tuple2<Integer, T> weightedValue(int weight, T value) {
    return Tuple.of(weight, value);
  }

  /** The key as a path suffix; RAW_SEMICOLON falls back to MINIMAL for a key without {@code ;}. */
  static String path(String key, Encoding encoding) {
    return switch (encoding) {
      case FULL -> TestApp.pathOf(key);
      case LOWER_HEX -> lowerHex(TestApp.pathOf(key));
      case EVERY_BYTE -> everyByte(key);
      case MINIMAL -> minimal(key, false);
      case RAW_SEMICOLON -> minimal(key, true);
    };
  }

  /** Whether {@code path(key, encoding)} addresses exactly {@code key}. */
  static boolean addressesExactly(String key, Encoding encoding) {
    return encoding != Encoding.RAW_SEMICOLON || key.indexOf(';') < 0;
  }

  private static String lowerHex(String encoded) {
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < encoded.length(); i++) {
      char c = encoded.charAt(i);
      if (c == '%' && i + 2 < encoded.length()) {
        out.append('%').append(encoded.substring(i + 1, i + 3).toLowerCase());
        i += 2;
      } else {
        out.append(c);
      }
    }
    return out.toString();
  }

  private static String everyByte(String key) {
    StringBuilder out = new StringBuilder();
    for (byte b : key.getBytes(StandardCharsets.UTF_8)) {
      out.append('%').append(String.format("%02X", b & 0xff));
    }
    return out.toString();
  }

  /**
   * RFC 3986 path characters as-is ({@code unreserved / sub-delims / ":" / "@"}), except {@code ;}
   * (unless {@code rawSemicolon}); everything else, {@code %} included, percent-encoded. A slash is
   * as-is unless the key's last segment is {@code refresh} or a segment is empty, as the README says.
   */
  private static String minimal(String key, boolean rawSemicolon) {
    String[] segments = key.split("/", -1);
    boolean encodeSlashes = segments[segments.length - 1].equals("refresh");
    for (String segment : segments) {
      encodeSlashes |= segment.isEmpty() && segments.length > 1;
    }
    StringBuilder out = new StringBuilder();
    for (byte b : key.getBytes(StandardCharsets.UTF_8)) {
      char c = (char) (b & 0xff);
      boolean plain =
          (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || "-._~!$&'()*+,=:@".indexOf(c) >= 0
              || (c == '/' && !encodeSlashes) || (c == ';' && rawSemicolon);
      if (plain) {
        out.append(c);
      } else {
        out.append('%').append(String.format("%02X", b & 0xff));
      }
    }
    return out.toString();
  }

  // ---------------------------------------------------------------------------------------------
  // Tokens and content types

  /** The read token the fuzz test's service is configured with (admin.readToken). */
  static final String READ_TOKEN = "fuzz-read-token-0123456789";

  /**
   * An Authorization header value, or null for none; {@code valid} when it carries a token of the
   * service, {@code readOnly} when that is the read token (GETs only; anything else 403).
   */
  record Token(String header, boolean valid, String name, boolean readOnly) {
    Token(String header, boolean valid, String name) {
      this(header, valid, name, false);
    }
  }

  static Arbitrary<Token> tokens() {
    return Arbitraries.frequency(
        weightedValue(40, new Token("Bearer " + TestApp.TOKEN, true, "ok")),
        weightedValue(1, new Token("bearer " + TestApp.TOKEN, true, "ok-lower-case-scheme")),
        weightedValue(3, new Token("Bearer " + READ_TOKEN, true, "read", true)),
        weightedValue(1, new Token(null, false, "none")),
        weightedValue(1, new Token("Bearer wrong-token-0123456789", false, "wrong")),
        weightedValue(1, new Token("Bearer " + TestApp.TOKEN + "x", false, "longer")),
        weightedValue(1, new Token("Bearer " + TestApp.TOKEN.substring(1), false, "shorter")),
        weightedValue(1, new Token("Basic " + java.util.Base64.getEncoder().encodeToString(("admin:" + TestApp.TOKEN).getBytes(StandardCharsets.UTF_8)), false, "basic")),
        weightedValue(1, new Token("Bearer ", false, "empty")),
        weightedValue(1, new Token(TestApp.TOKEN, false, "no-scheme")));
  }

  /** The Content-Type headers of a request with a body (none, one or two). */
  static Arbitrary<List<String>> contentTypes() {
    return Arbitraries.frequency(
        weightedValue(40, List.of("application/json")),
        weightedValue(3, List.of("application/json; charset=utf-8")),
        weightedValue(1, List.of("Application/JSON;charset=\"UTF-8\"")),
        weightedValue(1, List.<String>of()),
        weightedValue(1, List.of("text/plain")),
        weightedValue(1, List.of("application/merge-patch+json")),
        weightedValue(1, List.of("application/json;;;")),
        weightedValue(1, List.of("application/json; charset=iso-8859-1")),
        weightedValue(1, List.of("application/x-www-form-urlencoded")),
        weightedValue(1, List.of("multipart/form-data; boundary=x")),
        weightedValue(1, List.of("*/*")),
        weightedValue(1, List.of("application/json", "application/json")));
  }

  // ---------------------------------------------------------------------------------------------
  // Bodies

  /** One field of a JSON object, its value as JSON text (so that it may be anything, even not JSON). */
  record Field(String name, String json) {}

  /** How the body travels: its bytes, padded with spaces to {@code padTo} (valid JSON whitespace) when larger. */
  enum Transfer { LENGTH, CHUNKED, DECLARED_ONLY, SHORT_LENGTH }

  record Body(byte[] bytes, long padTo, Transfer transfer, String shape) {

    long size() {
      return Math.max(bytes.length, padTo);
    }

    /** What the server reads: all of it, or the first half when Content-Length says less than is sent. */
    byte[] asRead() {
      return transfer == Transfer.SHORT_LENGTH ? java.util.Arrays.copyOf(bytes, bytes.length / 2) : bytes;
    }
  }

  static final String[] VALID_TTLS = {
    "PT5M", "PT1H", "pt10m", "P1D", "PT720H", "P30D", "PT1S", "PT1.5S", "+PT2M", "PT2M30S", "P1DT1H", "PT0.999999999S",
    "P30DT0.000000001S", "PT86400S", "P-1D", "PT-5M", "PT0S", "PT1,5S"
  };

  static final String[] BAD_TTL_JSON = {
    "300", "\"PT5M \"", "\" PT5M\"", "\"PT5M\\u0000\"", "\"5 minutes\"", "\"PT\"", "\"P\"", "\"P1W\"", "\"P1Y\"", "\"PT5\"",
    "\"\"", "null", "true", "[\"PT5M\"]", "{\"seconds\":300}", "\"PT99999999999999999999H\"", "\"PT5M\\n\"",
    "\"\\uFF30T5M\""
  };

  /** Values of a declared type that the document says convert, and some it says do not. */
  static List<String> valuesFor(String type) {
    return switch (type) {
      case "string" -> List.of(
          "\"electronics\"", "\"books\"", "\"\"", "\"ünïcödé\"", "\"😀\"", "\"a b\"", json(HUNDRED_KB), "\"\\u2028\"",
          "\"\\t tab\"", "\"%2F..%2F\"", "\"'; DROP TABLE x;--\"", "5", "-7", "true");
      case "long" -> List.of(
          "1", "42", "0", "-1", "9223372036854775807", "-9223372036854775808", "\"42\"", "\" 7 \"", "\"-12\"", "42.0",
          "1e2", "9007199254740992", "4.2E1", "\"٤٢\"", "\"４２\"", "\"+7\"");
      case "double" -> List.of("1.5", "0", "-3", "999.9", "\"2.5\"", "\"1e3\"", "1e308", "1e-7", "5", "-0.0", "\" 2.5 \"", "\"1d\"", "\"0x1p3\"", "\"٢.٥\"");
      case "boolean" -> List.of("true", "false", "\"true\"", "\"false\"");
      default -> throw new IllegalArgumentException(type);
    };
  }

  static final String DEEP = "[".repeat(3000) + "]".repeat(3000);

  /** Values no declared type takes (or only some do). */
  static final List<String> HOSTILE_VALUES =
      List.of(
          "null", "[]", "{}", "\"abc\"", "\"NaN\"", "\"Infinity\"", "\"-Infinity\"", "1e400", "\"1e400\"", "-1e400",
          "\"\\u0000x\"", "\"\\ud800\"", "\"a\\udc00b\"", "1.5", "\"7.0\"", "9223372036854775808", "true", DEEP,
          "[[1]]", "{\"a\":{\"b\":1}}", "\"\\u0000\"", "\"0x10\"", "\"1d\"");

  static String json(String text) {
    try {
      return JSON.writeValueAsString(text);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  /** A key registration body the document says is valid, for one of {@code sources} (name → params). */
  static Arbitrary<List<Field>> registration(Map<String, Map<String, String>> sources) {
    return Arbitraries.of(List.copyOf(sources.keySet()))
        .flatMap(source -> Combinators.combine(
                params(sources.get(source), Set.of()),
                Arbitraries.of(VALID_TTLS),
                Arbitraries.of("", "null", "\"hot\"", "\"always\""),
                Arbitraries.of(true, true, true, false))
            .as((params, ttl, policy, withParams) -> {
              List<Field> fields = new ArrayList<>();
              fields.add(new Field("source", json(source)));
              if (withParams || !params.equals("{}")) {
                fields.add(new Field("params", params));
              }
              fields.add(new Field("ttl", json(ttl)));
              if (!policy.isEmpty()) {
                fields.add(new Field("policy", policy));
              }
              return fields;
            }));
  }

  /** A params object for the declared parameters less {@code supplied}, mostly with values that convert. */
  static Arbitrary<String> params(Map<String, String> declared, Set<String> supplied) {
    List<Arbitrary<String>> entries = new ArrayList<>();
    for (Map.Entry<String, String> param : declared.entrySet()) {
      if (supplied.contains(param.getKey())) {
        continue;
      }
      // The text a fraction becomes is not something the document fixes: none for string parameters.
      List<String> hostile =
          param.getValue().equals("string") ? HOSTILE_VALUES.stream().filter(v -> !v.equals("1.5")).toList() : HOSTILE_VALUES;
      Arbitrary<String> value = Arbitraries.frequencyOf(
          weighted(9, Arbitraries.of(valuesFor(param.getValue()))), weighted(1, Arbitraries.of(hostile)));
      entries.add(value.map(v -> json(param.getKey()) + ":" + v));
    }
    if (entries.isEmpty()) {
      return Arbitraries.just("{}");
    }
    return Combinators.combine(entries).as(parts -> "{" + String.join(",", parts) + "}");
  }

  /** A template in the test's menu: its pattern, the placeholders (null when the documented rules refuse the pattern), a source. */
  record PatternChoice(String pattern, Set<String> placeholders, String source) {}

  static final List<PatternChoice> PATTERNS =
      List.of(
          new PatternChoice(TEMPLATE_PREFIX + "{id}", Set.of("id"), "product-by-id"),
          new PatternChoice(TEMPLATE_PREFIX + "{id}", Set.of("id"), "stamped"),
          new PatternChoice(TEMPLATE_PREFIX + "p:{id}", Set.of("id"), "product-by-id"),
          new PatternChoice(TEMPLATE_PREFIX + "c:{category}", Set.of("category"), "products-in-category"),
          new PatternChoice(TEMPLATE_PREFIX + "{{{id}}}", Set.of("id"), "product-by-id"),
          new PatternChoice(TEMPLATE_PREFIX + "nothing", null, "product-by-id"),
          new PatternChoice(TEMPLATE_PREFIX + "{", null, "product-by-id"),
          new PatternChoice("refresher:{id}", null, "product-by-id"),
          new PatternChoice(TEMPLATE_PREFIX + "{nope}", null, "product-by-id"),
          new PatternChoice(TEMPLATE_PREFIX + "\u0001{id}", null, "product-by-id"),
          new PatternChoice("", null, "counted"),
          new PatternChoice(TEMPLATE_PREFIX + HUNDRED_KB + "{id}", null, "product-by-id"));

  static final List<String> TEMPLATE_NAMES =
      List.of("fz-a", "fz-b", "fz.c", "fz_d", "0fz", "t".repeat(64), "FZ", "fz/x", "fz x", "-fz", "t".repeat(65), "ünï", "fz;x");

  static Arbitrary<List<Field>> template(Map<String, Map<String, String>> sources) {
    // the patterns the rules accept three times as often as the others
    List<Tuple2<Integer, PatternChoice>> weightedPatterns =
        PATTERNS.stream().map(choice -> weightedValue(choice.placeholders() == null ? 1 : 3, choice)).toList();
    return Arbitraries.frequency(weightedPatterns)
        .flatMap(choice -> Combinators.combine(
                params(sources.get(choice.source()), choice.placeholders() == null ? Set.of() : choice.placeholders()),
                Arbitraries.of(VALID_TTLS),
                Arbitraries.of(true, false))
            .as((params, ttl, withParams) -> {
              List<Field> fields = new ArrayList<>();
              fields.add(new Field("pattern", json(choice.pattern())));
              fields.add(new Field("source", json(choice.source())));
              if (withParams || !params.equals("{}")) {
                fields.add(new Field("params", params));
              }
              fields.add(new Field("ttl", json(ttl)));
              return fields;
            }));
  }

  /** Mutations of an object's fields: none most of the time, else one to three of them. */
  static Arbitrary<List<Field>> mutateFields(Arbitrary<List<Field>> objects) {
    Arbitrary<FieldMutation> mutation = Arbitraries.of(FieldMutation.values());
    return Combinators.combine(objects, mutation.list().ofMaxSize(3), Arbitraries.integers().between(0, 1000), Arbitraries.of(true, false, false))
        .as((fields, mutations, seed, mutate) -> {
          List<Field> out = new ArrayList<>(fields);
          if (mutate) {
            for (FieldMutation m : mutations) {
              m.apply(out, seed);
            }
          }
          return out;
        });
  }

  enum FieldMutation {
    DROP {
      @Override
      void apply(List<Field> fields, int seed) {
        if (!fields.isEmpty()) {
          fields.remove(seed % fields.size());
        }
      }
    },
    UNKNOWN {
      @Override
      void apply(List<Field> fields, int seed) {
        String[] names = {"extra", "Source", "ttl ", "TTL", "params.id", "", "\u0000", json(HUNDRED_KB).replace("\"", "")};
        fields.add(seed % (fields.size() + 1), new Field(names[seed % names.length], "1"));
      }
    },
    DUPLICATE {
      @Override
      void apply(List<Field> fields, int seed) {
        if (!fields.isEmpty()) {
          Field copied = fields.get(seed % fields.size());
          fields.add(new Field(copied.name(), seed % 2 == 0 ? copied.json() : "\"other\""));
        }
      }
    },
    WRONG_TYPE {
      @Override
      void apply(List<Field> fields, int seed) {
        if (!fields.isEmpty()) {
          String[] values = {"42", "-1.5", "true", "false", "null", "[]", "{}", "\"x\"", "[\"PT5M\"]", "1e400", DEEP};
          int at = seed % fields.size();
          fields.set(at, new Field(fields.get(at).name(), values[seed % values.length]));
        }
      }
    },
    BAD_TTL {
      @Override
      void apply(List<Field> fields, int seed) {
        replace(fields, "ttl", BAD_TTL_JSON[seed % BAD_TTL_JSON.length]);
      }
    },
    BAD_POLICY {
      @Override
      void apply(List<Field> fields, int seed) {
        String[] values = {"\"HOT\"", "\"sometimes\"", "1", "\"\"", "\"always \"", "\"ho\\u0000t\"", json(HUNDRED_KB)};
        replace(fields, "policy", values[seed % values.length]);
      }
    },
    BAD_SOURCE {
      @Override
      void apply(List<Field> fields, int seed) {
        String[] values = {"\"no-such-source\"", "\"\"", "\" counted\"", "\"COUNTED\"", "\"count\\u0000ed\"", json(HUNDRED_KB), "\"😀\"", "\"\\ud800\""};
        replace(fields, "source", values[seed % values.length]);
      }
    },
    BAD_PARAMS {
      @Override
      void apply(List<Field> fields, int seed) {
        String[] values = {"[]", "\"x\"", "1", "{\"extra\":1}", "{\"id\":1,\"extra\":2}", "{\"id\":" + HOSTILE_VALUES.get(seed % HOSTILE_VALUES.size()) + "}", "{\"id\":1,\"id\":2}", "{\"\":1}"};
        replace(fields, "params", values[seed % values.length]);
      }
    },
    BIG_STRING {
      @Override
      void apply(List<Field> fields, int seed) {
        if (!fields.isEmpty()) {
          int at = seed % fields.size();
          fields.set(at, new Field(fields.get(at).name(), json(HUNDRED_KB)));
        }
      }
    };

    abstract void apply(List<Field> fields, int seed);

    private static void replace(List<Field> fields, String name, String json) {
      for (int i = 0; i < fields.size(); i++) {
        if (fields.get(i).name().equals(name)) {
          fields.set(i, new Field(name, json));
          return;
        }
      }
      fields.add(new Field(name, json));
    }
  }

  static String object(List<Field> fields) {
    return fields.stream().map(field -> "\"" + field.name() + "\":" + field.json()).collect(Collectors.joining(",", "{", "}"));
  }

  /** A body from {@code objects}: mostly as-is, sometimes broken as text, sometimes sized around and over {@code maxBody}. */
  static Arbitrary<Body> bodies(Arbitrary<List<Field>> objects, long maxBody) {
    Arbitrary<TextMutation> text =
        Arbitraries.frequency(weightedValue(30, TextMutation.NONE), weightedValue(1, TextMutation.TRUNCATE), weightedValue(1, TextMutation.TRAILING_COMMA),
            weightedValue(1, TextMutation.TRAILING_GARBAGE), weightedValue(1, TextMutation.SECOND_OBJECT), weightedValue(1, TextMutation.ARRAY),
            weightedValue(1, TextMutation.EMPTY), weightedValue(1, TextMutation.NULL), weightedValue(1, TextMutation.BOM), weightedValue(1, TextMutation.COMMENT),
            weightedValue(1, TextMutation.SINGLE_QUOTES), weightedValue(1, TextMutation.RAW_CONTROL), weightedValue(1, TextMutation.INVALID_UTF8),
            weightedValue(1, TextMutation.WHITESPACE));
    Arbitrary<Long> padTo =
        Arbitraries.frequency(weightedValue(60, 0L), weightedValue(1, maxBody), weightedValue(1, maxBody + 1), weightedValue(1, 10L * 1024 * 1024));
    Arbitrary<Transfer> transfer =
        Arbitraries.frequency(weightedValue(20, Transfer.LENGTH), weightedValue(3, Transfer.CHUNKED), weightedValue(1, Transfer.DECLARED_ONLY), weightedValue(1, Transfer.SHORT_LENGTH));
    return Combinators.combine(mutateFields(objects), text, padTo, transfer, Arbitraries.integers().between(0, 1 << 20))
        .as((fields, mutation, pad, how, seed) -> {
          byte[] bytes = mutation.apply(object(fields), seed);
          Transfer actual = how == Transfer.DECLARED_ONLY && pad <= maxBody ? Transfer.LENGTH : how;
          return new Body(bytes, pad, actual, mutation.name().toLowerCase() + (pad > 0 ? ", padded to " + pad : "") + ", " + actual.name().toLowerCase());
        });
  }

  enum TextMutation {
    NONE, TRUNCATE, TRAILING_COMMA, TRAILING_GARBAGE, SECOND_OBJECT, ARRAY, EMPTY, NULL, BOM, COMMENT, SINGLE_QUOTES,
    RAW_CONTROL, INVALID_UTF8, WHITESPACE;

    byte[] apply(String json, int seed) {
      return switch (this) {
        case NONE -> FuzzRules.utf8(json);
        case TRUNCATE -> java.util.Arrays.copyOf(FuzzRules.utf8(json), seed % Math.max(1, FuzzRules.utf8(json).length));
        case TRAILING_COMMA -> FuzzRules.utf8(json.substring(0, json.length() - 1) + ",}");
        case TRAILING_GARBAGE -> FuzzRules.utf8(json + " x");
        case SECOND_OBJECT -> FuzzRules.utf8(json + json);
        case ARRAY -> FuzzRules.utf8("[" + json + "]");
        case EMPTY -> new byte[0];
        case NULL -> FuzzRules.utf8("null");
        case BOM -> FuzzRules.utf8("\ufeff" + json);
        case COMMENT -> FuzzRules.utf8("/* c */" + json);
        case SINGLE_QUOTES -> FuzzRules.utf8(json.replace('"', '\''));
        case RAW_CONTROL -> FuzzRules.utf8(json.replaceFirst("\":\"", "\":\"\u0001"));
        case INVALID_UTF8 -> {
          byte[] bytes = FuzzRules.utf8(json);
          byte[] out = new byte[bytes.length + 2];
          int at = Math.max(1, bytes.length - 3);
          System.arraycopy(bytes, 0, out, 0, at);
          out[at] = (byte) 0xC3;
          out[at + 1] = (byte) 0x28;
          System.arraycopy(bytes, at, out, at + 2, bytes.length - at);
          yield out;
        }
        case WHITESPACE -> FuzzRules.utf8(" \r\n\t" + json.replace(",", " , ").replace(":", "\n:\t") + " \n");
      };
    }
  }
}
