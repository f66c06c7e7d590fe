package io.refresher.registry;

import java.util.Optional;

/**
 * Text the registry can store: PostgreSQL's {@code text} and {@code jsonb} cannot hold U+0000, and
 * an unpaired UTF-16 surrogate has no UTF-8 form (the driver would send it as {@code ?}, storing
 * something else than was asked). Checked on every string that reaches the store, so that such
 * input is refused naming its field instead of failing in the database.
 */
public final class TextRules {

  /** The broken rule, phrased for an error message. */
  public static final String RULE = "must be valid Unicode text without U+0000 (no NUL, no unpaired surrogates)";

  private TextRules() {}

  /** The broken rule, if any. */
  public static Optional<String> violation(String text) {
    return text == null || storable(text) ? Optional.empty() : Optional.of(RULE);
  }

  /** Whether {@code text} has neither U+0000 nor an unpaired surrogate. */
  public static boolean storable(String text) {
    return text.indexOf('\u0000') < 0 && !hasLoneSurrogate(text);
  }

  /** Whether {@code text} has a surrogate that is not half of a pair. */
  public static boolean hasLoneSurrogate(String text) {
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

  /**
   * Refuses {@code text} naming {@code field} when the store cannot hold it.
   *
   * @throws InvalidRegistrationException when it breaks the rule
   */
  public static void require(String field, String text) {
    violation(text).ifPresent(rule -> {
      throw new InvalidRegistrationException(field, rule);
    });
  }
}
