package io.refresher.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

class TemplatePatternTest {

  // ---------------------------------------------------------------------------------------------
  // Parsing: what a valid pattern is made of.

  @Test
  void parse_simplePattern_placeholdersLiteralsAndText() {
    TemplatePattern pattern = TemplatePattern.parse("product:{id}");

    assertThat(pattern.text()).isEqualTo("product:{id}");
    assertThat(pattern.placeholders()).containsExactly("id");
    assertThat(pattern.literalLength()).isEqualTo("product:".length());
    assertThat(pattern.literalPrefix()).isEqualTo("product:");
  }

  @Test
  void parse_severalPlaceholders_inOrderOfAppearance() {
    TemplatePattern pattern = TemplatePattern.parse("search:{category}:{page}:{sort_by}");

    assertThat(pattern.placeholders()).containsExactly("category", "page", "sort_by");
    assertThat(pattern.literalLength()).isEqualTo("search:::".length());
  }

  @Test
  void parse_escapedBraces_countAsOneLiteralCharacterEach() {
    TemplatePattern pattern = TemplatePattern.parse("user:{{{id}}}:cart");

    assertThat(pattern.placeholders()).containsExactly("id");
    assertThat(pattern.literalLength()).isEqualTo("user:{}:cart".length());
    assertThat(pattern.literalPrefix()).isEqualTo("user:{");
  }

  @Test
  void parse_leadingPlaceholder_emptyLiteralPrefix() {
    TemplatePattern pattern = TemplatePattern.parse("{kind}:{id}");

    assertThat(pattern.literalPrefix()).isEmpty();
    assertThat(pattern.literalLength()).isEqualTo(1);
  }

  @Test
  void parse_literalLength_countsCharactersNotBytes() {
    assertThat(TemplatePattern.parse("café☕:{id}").literalLength()).isEqualTo(6);
    assertThat(TemplatePattern.parse("🙂:{id}").literalLength()).as("one code point").isEqualTo(2);
  }

  @ParameterizedTest
  @ValueSource(strings = {"{id}", "_{x}", "{_}", "{a1}", "{A_b_9}", "a{x}b{y}c", "{x}.json", "{{{x}}}", "}}{x}{{"})
  void parse_validPatterns_accepted(String text) {
    assertThat(TemplatePattern.check(text).errors()).isEmpty();
    assertThat(TemplatePattern.parse(text).text()).isEqualTo(text);
  }

  @Test
  void parse_exactly512Bytes_accepted() {
    String text = "€".repeat(168) + "ab{id}xx"; // 504 + 8 bytes
    assertThat(text.getBytes(StandardCharsets.UTF_8)).hasSize(512);

    assertThat(TemplatePattern.check(text).errors()).isEmpty();
  }

  // ---------------------------------------------------------------------------------------------
  // Parsing: every rule, each on its own.

  static Stream<Arguments> brokenPatterns() {
    return Stream.of(
        Arguments.of("null", null, "is required"),
        Arguments.of("empty", "", "is required"),
        Arguments.of("513 bytes", "k".repeat(509) + "{id}", "must be at most 512 bytes in UTF-8"),
        Arguments.of("600 bytes of few characters", "€".repeat(198) + "{id}", "must be at most 512 bytes in UTF-8"),
        Arguments.of("control character", "product:\u0001{id}", "must not contain control characters"),
        Arguments.of("newline", "product:{id}\n", "must not contain control characters"),
        Arguments.of("line separator", "product:\u2028{id}", "must not contain control characters"),
        Arguments.of("lone surrogate", "product:\uD800{id}", "must be valid UTF-8 text"),
        Arguments.of("reserved prefix", "refresher:{id}", "must not start with 'refresher:'"),
        Arguments.of("no placeholder", "product:7", "must contain at least one placeholder"),
        Arguments.of("only escaped braces", "product:{{id}}", "must contain at least one placeholder"),
        Arguments.of("name starting with a digit", "product:{1id}", "invalid placeholder name {1id}"),
        Arguments.of("empty name", "product:{}", "invalid placeholder name {}"),
        Arguments.of("name with a dash", "product:{product-id}", "invalid placeholder name {product-id}"),
        Arguments.of("name with a space", "product:{ id}", "invalid placeholder name { id}"),
        Arguments.of("name with a colon", "product:{a:b}", "invalid placeholder name {a:b}"),
        Arguments.of("same name twice", "copy:{id}:{id}", "uses the placeholder {id} more than once"),
        Arguments.of("adjacent placeholders", "search:{category}{page}", "adjacent placeholders {category}{page}"),
        Arguments.of("unclosed brace", "product:{id", "unmatched '{' at position 8"),
        Arguments.of("brace opened twice", "a{b{c}", "unmatched '{' at position 1"),
        Arguments.of("closing brace alone", "product:id}:{x}", "unmatched '}' at position 10"),
        Arguments.of("third closing brace", "user:{x}}", "unmatched '}' at position 8"),
        Arguments.of("odd opening braces", "user:{{{x}:{{y}", "unmatched '}' at position 14"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("brokenPatterns")
  void check_brokenRule_namedForFieldPattern(String rule, String text, String expected) {
    TemplatePattern.Parsed parsed = TemplatePattern.check(text);

    assertThat(parsed.pattern()).isNull();
    assertThat(parsed.errors()).allSatisfy(error -> assertThat(error.field()).isEqualTo("pattern"));
    assertThat(parsed.errors()).extracting(FieldError::rule).anySatisfy(r -> assertThat(r).contains(expected));
    InvalidRegistrationException thrown =
        catchThrowableOfType(() -> TemplatePattern.parse(text), InvalidRegistrationException.class);
    assertThat(thrown.errors()).isEqualTo(parsed.errors());
  }

  @Test
  void check_severalRulesBroken_everyOneReported() {
    List<FieldError> errors = TemplatePattern.check("refresher:\u0007{1x}{a}{b}}:{a}").errors();

    assertThat(errors)
        .extracting(FieldError::rule)
        .anySatisfy(rule -> assertThat(rule).contains("control characters"))
        .anySatisfy(rule -> assertThat(rule).contains("'refresher:'"))
        .anySatisfy(rule -> assertThat(rule).contains("invalid placeholder name {1x}"))
        .anySatisfy(rule -> assertThat(rule).contains("adjacent placeholders {a}{b}"))
        .anySatisfy(rule -> assertThat(rule).contains("unmatched '}'"))
        .anySatisfy(rule -> assertThat(rule).contains("{a} more than once"));
  }

  @Test
  void check_invalidNameNextToValidOne_notReportedAsAdjacentToIt() {
    List<FieldError> errors = TemplatePattern.check("x:{1}{a}").errors();

    assertThat(errors).extracting(FieldError::rule).noneSatisfy(rule -> assertThat(rule).contains("adjacent"));
    assertThat(errors).extracting(FieldError::rule).anySatisfy(rule -> assertThat(rule).contains("{1}"));
  }

  @Test
  void check_brokenPattern_stillReportsTheValidPlaceholderNames() {
    TemplatePattern.Parsed parsed = TemplatePattern.check("search:{category}{page}:{1x}");

    assertThat(parsed.pattern()).isNull();
    assertThat(parsed.placeholders()).containsExactly("category", "page");
  }

  // ---------------------------------------------------------------------------------------------
  // Matching.

  @Test
  void match_singlePlaceholder_valueByName() {
    assertThat(TemplatePattern.parse("product:{id}").match("product:7")).contains(Map.of("id", "7"));
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "product:", // a placeholder matches at least one character
        "product:7:reviews", // nor a ':'
        "product:7/reviews", // nor a '/'
        "product:{7}", // nor a brace
        "my-product:7", // anchored at the start
        "product:7:", // and at the end
        "Product:7", // literals are case-sensitive
        "product7",
        ""
      })
  void match_keyNotOfTheFamily_empty(String key) {
    assertThat(TemplatePattern.parse("product:{id}").match(key)).isEmpty();
  }

  @Test
  void match_null_empty() {
    assertThat(TemplatePattern.parse("product:{id}").match(null)).isEmpty();
  }

  @Test
  void match_slashSeparatedPattern_placeholderStopsAtSlash() {
    TemplatePattern pattern = TemplatePattern.parse("catalog/{category}");

    assertThat(pattern.match("catalog/books")).contains(Map.of("category", "books"));
    assertThat(pattern.match("catalog/books/page-2")).isEmpty();
    assertThat(pattern.match("catalog/books:2")).isEmpty();
  }

  @Test
  void match_anyOtherCharacterIsPartOfTheValue() {
    TemplatePattern pattern = TemplatePattern.parse("q:{text}");

    assertThat(pattern.match("q:a b?c#d%e.f-g_h+i=j")).contains(Map.of("text", "a b?c#d%e.f-g_h+i=j"));
    assertThat(pattern.match("q:café☕🙂")).contains(Map.of("text", "café☕🙂"));
  }

  @Test
  void match_severalPlaceholders_eachValueBetweenSeparators() {
    TemplatePattern pattern = TemplatePattern.parse("search:{category}:{page}");

    Optional<Map<String, String>> values = pattern.match("search:books:2");

    assertThat(values).isPresent();
    assertThat(values.get()).containsExactly(Map.entry("category", "books"), Map.entry("page", "2"));
    assertThat(pattern.match("search:books")).isEmpty();
    assertThat(pattern.match("search::2")).isEmpty();
    assertThat(pattern.match("search:books:2:x")).isEmpty();
  }

  @Test
  void match_escapedBraces_matchTheHashTagKey() {
    TemplatePattern pattern = TemplatePattern.parse("user:{{{id}}}:cart");

    assertThat(pattern.match("user:{42}:cart")).contains(Map.of("id", "42"));
    assertThat(pattern.match("user:42:cart")).isEmpty();
    assertThat(pattern.match("user:{42:cart")).isEmpty();
    assertThat(pattern.match("user:{4{2}:cart")).isEmpty();
    assertThat(pattern.match("user:{}:cart")).isEmpty();
  }

  @Test
  void match_hashTagAtTheStart_asRedisClusterKeysOftenAre() {
    TemplatePattern pattern = TemplatePattern.parse("{{{tenant}}}:user:{id}");

    assertThat(pattern.match("{acme}:user:7")).contains(Map.of("tenant", "acme", "id", "7"));
    assertThat(pattern.literalPrefix()).isEqualTo("{");
  }

  @Test
  void match_literalAfterPlaceholderThatValuesMayContain_backtracksToTheLastOne() {
    TemplatePattern pattern = TemplatePattern.parse("product:{id}.json");

    assertThat(pattern.match("product:7.json")).contains(Map.of("id", "7"));
    assertThat(pattern.match("product:7.5.json")).contains(Map.of("id", "7.5"));
    assertThat(pattern.match("product:.json")).isEmpty();
    assertThat(pattern.match("product:7.json.bak")).isEmpty();
    assertThat(pattern.match("product:7.jso")).isEmpty();
  }

  @Test
  void match_twoPlaceholdersSplitByAValueCharacter_firstTakesAllItCan() {
    // "a.b.c" splits as a.b + c: the first placeholder is greedy, and the split is deterministic.
    TemplatePattern pattern = TemplatePattern.parse("{name}.{ext}");

    assertThat(pattern.match("a.b.c")).contains(Map.of("name", "a.b", "ext", "c"));
    assertThat(pattern.match("a.")).isEmpty();
    assertThat(pattern.match(".a")).isEmpty();
    assertThat(pattern.match("..")).isEmpty();
    assertThat(pattern.match("...")).contains(Map.of("name", ".", "ext", "."));
  }

  @Test
  void match_regexMetacharactersInLiterals_matchedLiterally() {
    TemplatePattern pattern = TemplatePattern.parse("price.list[{id}]+(x)*^$|?\\E\\Q");

    assertThat(pattern.match("price.list[7]+(x)*^$|?\\E\\Q")).contains(Map.of("id", "7"));
    assertThat(pattern.match("priceXlist[7]+(x)*^$|?\\E\\Q")).isEmpty();
    assertThat(pattern.match("price.list[7]]+(x)*^$|?\\E\\Q")).contains(Map.of("id", "7]"));
  }

  @Test
  void match_ipLikePatternOnLongLegitimateKey_matchesWithinTheBudget() {
    // Four placeholders between separators: many ways to split, each placeholder takes all it can.
    TemplatePattern pattern = TemplatePattern.parse("ip:{a}.{b}.{c}.{d}");
    String value = "x.".repeat(250) + "x";

    assertThat(pattern.match("ip:1.2.3.4")).contains(Map.of("a", "1", "b", "2", "c", "3", "d", "4"));
    assertThat(pattern.match("ip:" + value))
        .contains(Map.of("a", "x.".repeat(247) + "x", "b", "x", "c", "x", "d", "x"));
  }

  @Test
  void match_longestLegitimateKeys_match() {
    String category = "c".repeat(490);
    assertThat(TemplatePattern.parse("search:{category}:{page}").match("search:" + category + ":2"))
        .contains(Map.of("category", category, "page", "2"));
    String name = "n.".repeat(250);
    assertThat(TemplatePattern.parse("file:{name}.{ext}").match("file:" + name + "json"))
        .contains(Map.of("name", name.substring(0, name.length() - 1), "ext", "json"));
  }

  @Test
  void match_keyWithoutTheLiteralSuffix_rejectedQuickly() {
    // A backtracking regex took over a minute on this key: five placeholders between separators,
    // hundreds of places to split at, and a mismatch at the very end.
    TemplatePattern pattern = TemplatePattern.parse("{a}.{b}.{c}.{d}.{e}:end");
    String key = "a.".repeat(250) + "a:enX";

    assertThat(assertTimeoutPreemptively(Duration.ofSeconds(2), () -> pattern.match(key))).isEmpty();
    assertThat(pattern.match("1.2.3.4.5:end")).isPresent();
  }

  @Test
  void match_keyThatWouldMakeARegexBacktrackForMinutes_isDecidedQuickly() {
    // The same shape failing in the middle: no prefix or suffix check can tell; the matcher is linear.
    TemplatePattern pattern = TemplatePattern.parse("{a}.{b}.{c}.{d}.{e}:x:{f}");
    String key = "a.".repeat(250) + "a:y:z";

    assertThat(assertTimeoutPreemptively(Duration.ofSeconds(2), () -> pattern.match(key))).isEmpty();
    assertThat(pattern.match("1.2.3.4.5:x:6")).isPresent();
    assertThat(pattern.match("a.".repeat(250) + "a:x:z")).as("the same long key, matching").isPresent();
  }

  @Test
  void match_agreesWithAGreedyRegex_onManyRandomKeys() {
    // The reference: the same pattern as a greedy java.util.regex (fine on short keys).
    List<List<String>> shapes =
        List.of(
            List.of("", ".", ""),
            List.of("x", ".y", "z"),
            List.of("", "-", "-", ""),
            List.of("k:", ".", ".", ":e"),
            List.of("", "a", ""),
            List.of("p/", "", ""));
    String alphabet = "ab.-:x/yz";
    SplittableRandom random = new SplittableRandom(7);
    int matched = 0;
    for (List<String> literals : shapes) {
      StringBuilder text = new StringBuilder(literals.get(0));
      StringBuilder regex = new StringBuilder(java.util.regex.Pattern.quote(literals.get(0)));
      for (int i = 1; i < literals.size(); i++) {
        text.append("{v").append(i).append('}').append(literals.get(i).isEmpty() && i < literals.size() - 1 ? "-" : literals.get(i));
        String literal = literals.get(i).isEmpty() && i < literals.size() - 1 ? "-" : literals.get(i);
        regex.append("([^:/{}]+)").append(literal.isEmpty() ? "" : java.util.regex.Pattern.quote(literal));
      }
      TemplatePattern pattern = TemplatePattern.parse(text.toString());
      java.util.regex.Pattern reference = java.util.regex.Pattern.compile(regex.toString());
      for (int trial = 0; trial < 20_000; trial++) {
        StringBuilder key = new StringBuilder(literals.get(0));
        int length = random.nextInt(12);
        for (int c = 0; c < length; c++) {
          key.append(alphabet.charAt(random.nextInt(alphabet.length())));
        }
        java.util.regex.Matcher expected = reference.matcher(key);
        Optional<Map<String, String>> actual = pattern.match(key.toString());
        if (expected.matches()) {
          matched++;
          Map<String, String> values = new java.util.LinkedHashMap<>();
          for (int g = 1; g <= expected.groupCount(); g++) {
            values.put("v" + g, expected.group(g));
          }
          assertThat(actual).as("%s on %s", text, key).contains(values);
        } else {
          assertThat(actual).as("%s on %s", text, key).isEmpty();
        }
      }
    }
    assertThat(matched).as("the random keys include many matches").isGreaterThan(1000);
  }

  @Test
  void equals_byText() {
    assertThat(TemplatePattern.parse("product:{id}")).isEqualTo(TemplatePattern.parse("product:{id}"));
    assertThat(TemplatePattern.parse("product:{id}")).isNotEqualTo(TemplatePattern.parse("product:{sku}"));
  }

  @Test
  void parse_invalid_throwsWithEveryRule() {
    assertThatThrownBy(() -> TemplatePattern.parse("refresher:x"))
        .isInstanceOf(InvalidRegistrationException.class)
        .hasMessageContaining("'refresher:'")
        .hasMessageContaining("at least one placeholder");
  }

  @Test
  void render_everyPlaceholderGiven_keyThatMatchesBackToTheValues() {
    TemplatePattern pattern = TemplatePattern.parse("variant:{product}:{color}");

    Optional<String> key = pattern.render(Map.of("product", "42", "color", "red", "unused", "x"));

    assertThat(key).contains("variant:42:red");
    assertThat(pattern.match(key.get())).contains(Map.of("product", "42", "color", "red"));
  }

  @Test
  void render_escapedBraces_literalBracesInTheKey() {
    assertThat(TemplatePattern.parse("user:{{{id}}}:cart").render(Map.of("id", "42"))).contains("user:{42}:cart");
  }

  @Test
  void render_placeholderMissing_empty() {
    assertThat(TemplatePattern.parse("variant:{product}:{color}").render(Map.of("product", "42"))).isEmpty();
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "a:b", "a/b", "a{b", "a}b"})
  void render_valueEmptyOrWithASeparator_empty(String value) {
    assertThat(TemplatePattern.parse("product:{id}").render(Map.of("id", value))).isEmpty();
  }

  @Test
  void render_keyThatSplitsIntoOtherValues_empty() {
    TemplatePattern pattern = TemplatePattern.parse("{name}.{ext}");

    // "a.b.c" is the key of name "a.b" and ext "c" (greedy, left to right), not of "a" and "b.c"
    assertThat(pattern.render(Map.of("name", "a", "ext", "b.c"))).isEmpty();
    assertThat(pattern.render(Map.of("name", "a.b", "ext", "c"))).contains("a.b.c");
  }

  @Test
  void render_thenMatch_roundTripsOnRandomValues() {
    SplittableRandom random = new SplittableRandom(7);
    TemplatePattern pattern = TemplatePattern.parse("p:{a}-{b}:{c}");
    String alphabet = "ab-.x9";
    for (int i = 0; i < 2000; i++) {
      Map<String, String> values = new java.util.LinkedHashMap<>();
      for (String name : List.of("a", "b", "c")) {
        StringBuilder value = new StringBuilder();
        int length = 1 + random.nextInt(4);
        for (int c = 0; c < length; c++) {
          value.append(alphabet.charAt(random.nextInt(alphabet.length())));
        }
        values.put(name, value.toString());
      }
      Optional<String> key = pattern.render(values);
      if (key.isPresent()) {
        assertThat(pattern.match(key.get())).as("%s", values).contains(values);
      } else {
        assertThat(pattern.match("p:" + values.get("a") + "-" + values.get("b") + ":" + values.get("c")))
            .as("rendering refused only where the key splits otherwise: %s", values)
            .isNotEqualTo(Optional.of(values));
      }
    }
  }
}
