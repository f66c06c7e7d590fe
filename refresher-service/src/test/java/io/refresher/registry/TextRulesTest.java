package io.refresher.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class TextRulesTest {

  @ParameterizedTest
  @ValueSource(strings = {"", "plain", "caf\u00e9", "\uD83D\uDE00 pair", "tab\tand\nnewline"})
  void violation_textPostgresCanHold_none(String text) {
    assertThat(TextRules.violation(text)).isEmpty();
  }

  @ParameterizedTest
  @ValueSource(strings = {"\u0000", "a\u0000b", "a\ud800", "\udc00b", "\uDE00\uD83D"})
  void violation_nulOrUnpairedSurrogate_refused(String text) {
    assertThat(TextRules.violation(text)).contains(TextRules.RULE);
  }

  @Test
  void violation_null_none() {
    assertThat(TextRules.violation(null)).isEmpty();
  }

  @Test
  void require_unstorable_throwsNamingTheField() {
    assertThatThrownBy(() -> TextRules.require("after", "a\u0000"))
        .isInstanceOfSatisfying(
            InvalidRegistrationException.class,
            e -> assertThat(e.errors()).containsExactly(new FieldError("after", TextRules.RULE)));
  }
}
