package io.refresher.api;

/**
 * The input rules of the admin API as its OpenAPI document states them: regular expressions in the
 * dialect of JSON Schema (ECMA-262), which {@code java.util.regex} reads the same way with {@code
 * matches()} (with {@code find()}, Java's {@code $} also matches before a final line terminator),
 * and the bounds beside them. They restate {@code KeyRules}, {@code TemplateNames}, {@link IsoDuration} and
 * {@code RegistrationLimits} for clients; {@code OpenApiRulesTest} checks, on generated input, that
 * each agrees with the code that enforces it.
 */
public final class OpenApiRules {

  private OpenApiRules() {}

  /**
   * A key: not empty, no control characters (Unicode category Cc) and no line or paragraph
   * separator, not {@code .} or {@code ..}, not under the reserved prefix {@code refresher:}.
   * Its length is bounded in UTF-8 bytes ({@link #KEY_MAX_UTF8_BYTES}), which a pattern cannot say.
   */
  public static final String KEY_PATTERN =
      "^(?!refresher:)(?!\\.\\.?$)[^\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029]+$";

  public static final int KEY_MAX_UTF8_BYTES = 512;

  /** The same bound as a string, for annotations. */
  public static final String KEY_MAX_UTF8_BYTES_TEXT = "512";

  /** The extension that carries a length in UTF-8 bytes (JSON Schema's maxLength counts characters). */
  public static final String MAX_UTF8_BYTES_EXTENSION = "x-max-utf8-bytes";

  public static final String KEY_DESCRIPTION =
      "The key, exactly as applications read it from Redis: the rest of the path, percent-decoded. "
          + "At most 512 UTF-8 bytes (x-max-utf8-bytes); no control characters or line separators; "
          + "not '.' or '..'; not starting with 'refresher:'. Percent-encode '%', '?', '#', ';', '\\', "
          + "spaces and non-ASCII characters, and '/' when the last segment is 'refresh' or a segment is "
          + "empty; encoding every reserved character always works.";

  /** A template name: 1 to 64 characters of a-z, 0-9, '.', '_' and '-', starting with a letter or digit. */
  public static final String TEMPLATE_NAME_PATTERN = "^[a-z0-9][a-z0-9._-]*$";

  public static final int TEMPLATE_NAME_MAX_LENGTH = 64;

  /**
   * An ISO-8601 duration as {@code java.time.Duration.parse} reads it: days, hours, minutes and
   * seconds (with up to nine decimals), each optionally signed, letters in either case, at least
   * one part, and at least one after a {@code T}.
   */
  public static final String TTL_PATTERN =
      "^[-+]?[Pp](?=[-+]?[0-9]|[Tt][-+]?[0-9])(?:[-+]?[0-9]+[Dd])?"
          + "(?:[Tt](?=[-+]?[0-9])(?:[-+]?[0-9]+[Hh])?(?:[-+]?[0-9]+[Mm])?(?:[-+]?[0-9]+(?:[.,][0-9]{0,9})?[Ss])?)?$";

  /** The extensions that carry a TTL's bounds, inclusive (a pattern cannot compare durations). */
  public static final String MIN_DURATION_EXTENSION = "x-minimum-duration";

  public static final String MAX_DURATION_EXTENSION = "x-maximum-duration";

  public static final String TTL_MIN = "PT1S";

  public static final String TTL_MAX = "PT720H";

  public static final String TTL_DESCRIPTION =
      "Time to live of the value in Redis, as an ISO-8601 duration string exactly (PT5M): no spaces, no "
          + "other characters, not a number; between PT1S and PT720H (30 days) inclusive "
          + "(x-minimum-duration, x-maximum-duration).";

  public static final String PARAMS_DESCRIPTION =
      "The source's parameters, exactly those it declares (GET /v1/sources), each a JSON scalar converted "
          + "to the declared type: 'string' takes a string, or a finite number or a boolean as its text (42 "
          + "gives '42', true 'true'); 'long' a whole number, or a string of one (digits, optionally signed, surrounding "
          + "whitespace ignored); 'double' a finite number, or a string of one; 'boolean' true, false, 'true' "
          + "or 'false'. Text must be valid Unicode without U+0000 (no NUL, no unpaired surrogate). Absent or "
          + "null: no parameters.";

  /** The largest page of a listing. */
  public static final String MAX_PAGE = "1000";
}
