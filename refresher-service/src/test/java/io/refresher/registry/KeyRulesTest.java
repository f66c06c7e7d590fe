package io.refresher.registry;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class KeyRulesTest {

  @Test
  void violation_null_mustNotBeEmpty() {
    assertThat(KeyRules.violation(null)).contains("must not be empty");
  }

  @Test
  void violation_empty_mustNotBeEmpty() {
    assertThat(KeyRules.violation("")).contains("must not be empty");
  }

  @Test
  void violation_exactly512AsciiBytes_isAccepted() {
    assertThat(KeyRules.violation("k".repeat(KeyRules.MAX_KEY_BYTES))).isEmpty();
  }

  @Test
  void violation_513AsciiBytes_isTooLong() {
    assertThat(KeyRules.violation("k".repeat(KeyRules.MAX_KEY_BYTES + 1)))
        .contains("must be at most 512 bytes in UTF-8");
  }

  @Test
  void violation_multiByteCharsOver512Bytes_isTooLongAlthoughFewChars() {
    // 171 chars, 513 bytes: the limit counts UTF-8 bytes, not chars.
    String key = "€".repeat(171);
    assertThat(key.length()).isEqualTo(171);
    assertThat(key.getBytes(StandardCharsets.UTF_8)).hasSize(513);

    assertThat(KeyRules.violation(key)).contains("must be at most 512 bytes in UTF-8");
  }

  @Test
  void violation_multiByteCharsOfExactly512Bytes_isAccepted() {
    String key = "€".repeat(170) + "ab";
    assertThat(key.getBytes(StandardCharsets.UTF_8)).hasSize(512);

    assertThat(KeyRules.violation(key)).isEmpty();
  }

  @Test
  void violation_emojiOver512Bytes_isTooLong() {
    // each emoji is two chars and four bytes: 129 of them are 258 chars but 516 bytes
    String key = "\uD83D\uDE00".repeat(129);
    assertThat(KeyRules.violation(key)).contains("must be at most 512 bytes in UTF-8");
    assertThat(KeyRules.violation("\uD83D\uDE00".repeat(128))).isEmpty();
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "a\nb", "a\rb", "a\tb", "a\u0000b", "\u001fkey", "key\u007f", "\u001b[31mred", "a\u0085b", "a\u009bb",
        "a\u2028b", "a\u2029b"
      })
  void violation_controlCharacter_isRefused(String key) {
    assertThat(KeyRules.violation(key)).contains("must not contain control characters or line separators");
  }

  @ParameterizedTest
  @ValueSource(strings = {"a\uD800b", "a\uDC00b", "tail\uD83D", "\uDE00head"})
  void violation_unpairedSurrogate_mustBeValidUtf8(String key) {
    assertThat(KeyRules.violation(key)).contains("must be valid UTF-8 text");
  }

  @ParameterizedTest
  @ValueSource(strings = {"refresher:", "refresher:meta:{product:42}", "refresher:lock:x", "refresher:epoch"})
  void violation_reservedPrefix_isRefused(String key) {
    assertThat(KeyRules.violation(key))
        .contains("must not start with 'refresher:' (reserved for the service)");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "product:42",
        "catalog/electronics",
        "a b?c#d%e",
        "user:{42}:cart",
        "\uD83D\uDE00:cart",
        "Käse:grüße",
        "键:值",
        "refresher",
        "Refresher:x",
        "my-refresher:x",
        "{",
        "}"
      })
  void violation_ordinaryKey_isAccepted(String key) {
    assertThat(KeyRules.violation(key)).isEmpty();
  }

  @Test
  void violation_tooLongAndControlChar_reportsLengthFirst() {
    String key = "\n" + "k".repeat(KeyRules.MAX_KEY_BYTES);
    assertThat(KeyRules.violation(key)).contains("must be at most 512 bytes in UTF-8");
  }

  @ParameterizedTest
  @ValueSource(strings = {".", ".."})
  void violation_dotSegment_refused(String key) {
    // /v1/keys/.. is resolved away by clients and servers: such a key cannot be addressed reliably.
    assertThat(KeyRules.violation(key)).contains("must not be '.' or '..'");
  }

  @ParameterizedTest
  @ValueSource(strings = {"...", ".a", "a.", "a/../b", "./x"})
  void violation_dotsWithinAKey_accepted(String key) {
    assertThat(KeyRules.violation(key)).isEmpty();
  }

  @Test
  void violation_nul_refusedAsControlCharacter() {
    assertThat(KeyRules.violation("a\u0000b")).contains("must not contain control characters or line separators");
  }

  @ParameterizedTest
  @ValueSource(strings = {"a\ud800b", "a\udc00", "\ud800"})
  void violation_loneSurrogate_refused(String key) {
    assertThat(KeyRules.violation(key)).contains("must be valid UTF-8 text");
  }
}
