package io.refresher.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.refresher.registry.KeyRules;
import io.refresher.registry.RegistrationLimits;
import io.refresher.registry.Registry;
import io.refresher.registry.TemplateNames;
import io.refresher.registry.Templates;
import io.refresher.registry.TextRules;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.regex.Pattern;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * The rules the OpenAPI document states agree with the code that enforces them, on generated input
 * built from the pieces each rule is about (dots, the reserved prefix, control characters, line
 * separators, multi-byte characters; duration letters, signs, fractions) and on random text.
 */
class OpenApiRulesTest {

  private static final Pattern KEY = Pattern.compile(OpenApiRules.KEY_PATTERN);
  private static final Pattern TTL = Pattern.compile(OpenApiRules.TTL_PATTERN);
  private static final Pattern TEMPLATE_NAME = Pattern.compile(OpenApiRules.TEMPLATE_NAME_PATTERN);

  @Property(tries = 3000)
  void keyPattern_agreesWithKeyRules(@ForAll("keys") String key) {
    boolean documented =
        KEY.matcher(key).matches() && key.getBytes(StandardCharsets.UTF_8).length <= OpenApiRules.KEY_MAX_UTF8_BYTES;

    assertThat(documented).as("documented rule for %s", escaped(key)).isEqualTo(KeyRules.violation(key).isEmpty());
  }

  @Property(tries = 3000)
  void ttlPattern_agreesWithIsoDuration(@ForAll("durations") String text) {
    assertThat(TTL.matcher(text).matches()).as("documented format of '%s'", escaped(text)).isEqualTo(parses(text));
  }

  /** Found by the property above in a clean-clone run: Java's parser took a T with no time after it. */
  @Example
  void ttl_aTWithNothingAfterIt_refusedByPatternAndParserAlike() {
    for (String text : List.of("P-0Dt", "P1DT", "p1dt", "-P2DT")) {
      assertThat(TTL.matcher(text).matches()).as("documented format of '%s'", text).isFalse();
      assertThat(parses(text)).as("parsed '%s'", text).isFalse();
    }
  }

  @Property(tries = 2000)
  void templateNamePattern_agreesWithTemplateNames(@ForAll("templateNames") String name) {
    boolean documented = TEMPLATE_NAME.matcher(name).matches() && name.length() <= OpenApiRules.TEMPLATE_NAME_MAX_LENGTH;

    assertThat(documented).as("documented rule for %s", escaped(name)).isEqualTo(TemplateNames.violation(name).isEmpty());
  }

  @Example
  void bounds_areTheEnforcedOnes() {
    assertThat(Duration.parse(OpenApiRules.TTL_MIN)).isEqualTo(RegistrationLimits.DEFAULT.minTtl());
    assertThat(Duration.parse(OpenApiRules.TTL_MAX)).isEqualTo(RegistrationLimits.DEFAULT.maxTtl());
    assertThat(OpenApiRules.KEY_MAX_UTF8_BYTES).isEqualTo(KeyRules.MAX_KEY_BYTES);
    assertThat(OpenApiRules.KEY_MAX_UTF8_BYTES_TEXT).isEqualTo(String.valueOf(KeyRules.MAX_KEY_BYTES));
    assertThat(OpenApiRules.TEMPLATE_NAME_MAX_LENGTH).isEqualTo(TemplateNames.MAX_LENGTH);
    assertThat(List.of(Registry.MAX_PAGE, Templates.MAX_PAGE, HotResource.MAX_LIMIT))
        .containsOnly(Integer.parseInt(OpenApiRules.MAX_PAGE));
  }

  @Provide
  Arbitrary<String> keys() {
    Arbitrary<String> pieces =
        Arbitraries.of(
            ".", "..", "/", "refresher:", "refresher", ":", "a", "Z", "0", " ", "%2F", "\u0000", "\u0001", "\t", "\n",
            "\u001f", "\u007f", "\u0080", "\u009f", "\u00a0", "\u2028", "\u2029", "\u200b", "€", "😀", "\ufeff",
            "k".repeat(100), "€".repeat(60));
    Arbitrary<String> built = pieces.list().ofMaxSize(8).map(parts -> String.join("", parts));
    Arbitrary<String> random = Arbitraries.strings().all().ofMaxLength(600);
    // A lone surrogate cannot travel in a path (it has no UTF-8 form): the document need not say it.
    return Arbitraries.oneOf(built, random).filter(key -> !TextRules.hasLoneSurrogate(key));
  }

  @Provide
  Arbitrary<String> durations() {
    Arbitrary<String> pieces =
        Arbitraries.of(
            "P", "p", "T", "t", "D", "d", "H", "h", "M", "m", "S", "s", "W", "Y", "-", "+", "0", "1", "5", "12",
            "999999999999999999999", ".", ",", "123456789", "1234567890", " ", "\u0000", "x");
    Arbitrary<String> built = pieces.list().ofMaxSize(9).map(parts -> String.join("", parts));
    Arbitrary<String> shaped =
        Arbitraries.of("", "-", "+")
            .flatMap(sign -> Arbitraries.of("P", "PT", "P1D", "P1DT", "pt", "P-2DT")
                .flatMap(start -> Arbitraries.of("", "1H", "5M", "30S", "1.5S", "0,000000001S", "1.1234567891S", "-1M", "1H1M1S", "1S1M")
                    .map(rest -> sign + start + rest)));
    return Arbitraries.oneOf(built, shaped, Arbitraries.strings().ofMaxLength(12));
  }

  @Provide
  Arbitrary<String> templateNames() {
    Arbitrary<String> pieces = Arbitraries.of("a", "z", "0", "9", ".", "_", "-", "A", " ", "/", "é", "x".repeat(30));
    return Arbitraries.oneOf(
        pieces.list().ofMaxSize(6).map(parts -> String.join("", parts)), Arbitraries.strings().ofMaxLength(70));
  }

  /** What {@link IsoDuration} reads; an overflow is still the documented format. */
  private static boolean parses(String text) {
    try {
      IsoDuration.parse(text);
      return true;
    } catch (DateTimeParseException e) {
      // Well-formed, but a number out of range: too large for its field once multiplied
      // (ArithmeticException) or already for a long (NumberFormatException, 20 digits and more).
      return e.getCause() instanceof ArithmeticException || e.getCause() instanceof NumberFormatException;
    }
  }

  private static String escaped(String text) {
    StringBuilder out = new StringBuilder();
    text.codePoints()
        .limit(80)
        .forEach(c -> out.append(c < 0x20 || (c >= 0x7f && c < 0xa0) || c > 0x7e ? String.format("\\u%04x", c) : String.valueOf((char) c)));
    return out + (text.length() > 80 ? "…(" + text.length() + " chars)" : "");
  }
}
