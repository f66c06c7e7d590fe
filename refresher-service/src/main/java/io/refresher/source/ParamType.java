package io.refresher.source;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.math.BigDecimal;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * The type of a source parameter. A registration's parameter values arrive as JSON scalars and are
 * converted here, so that a bad value is refused at registration time rather than at every refresh.
 */
public enum ParamType {
  STRING("a string"),
  LONG("a whole number"),
  DOUBLE("a finite number"),
  BOOLEAN("true or false");

  /** A whole number in ASCII digits, optionally signed. */
  private static final Pattern WHOLE = Pattern.compile("[-+]?[0-9]+");

  /** A number in decimal notation, as JSON writes one (leading zeros and a bare point allowed). */
  private static final Pattern DECIMAL = Pattern.compile("[-+]?([0-9]+\\.?[0-9]*|\\.[0-9]+)([eE][-+]?[0-9]+)?");

  private final String description;

  ParamType(String description) {
    this.description = description;
  }

  public String description() {
    return description;
  }

  /**
   * Converts a JSON scalar (as Jackson reads it: String, Integer, Long, BigInteger, Double,
   * BigDecimal, Boolean) into the value bound to the query. Numbers must be finite: NaN and the
   * infinities (text, or a JSON number too large for a double) are refused; numbers in text must be
   * in decimal notation, in ASCII digits.
   *
   * @throws IllegalArgumentException with a message naming the rule when the value does not fit
   */
  public Object convert(Object value) {
    if (value == null) {
      throw new IllegalArgumentException("must be " + description + ", not null");
    }
    switch (this) {
      case STRING:
        if (value instanceof String text) {
          return text;
        }
        if ((value instanceof Number number && finite(number)) || value instanceof Boolean) {
          return value.toString();
        }
        break;
      case LONG:
        if (value instanceof Integer || value instanceof Long || value instanceof Short) {
          return ((Number) value).longValue();
        }
        if (value instanceof Number number) {
          try {
            return new BigDecimal(number.toString()).longValueExact();
          } catch (ArithmeticException | NumberFormatException e) {
            break;
          }
        }
        // ASCII digits only: Long.parseLong also reads other scripts' digits ("٤٢" was 42)
        if (value instanceof String text && WHOLE.matcher(text.trim()).matches()) {
          try {
            return Long.parseLong(text.trim());
          } catch (NumberFormatException e) {
            break; // out of range
          }
        }
        break;
      case DOUBLE:
        // NaN and the infinities are no value a query can compare with; they were stored as the
        // text "NaN" or "Infinity" (1e400 arrives from Jackson as infinity)
        if (value instanceof Number number) {
          double converted = number.doubleValue();
          if (Double.isFinite(converted)) {
            return converted;
          }
          break;
        }
        // decimal notation only: Double.parseDouble also reads Java literals ("1d", "0x1p3")
        if (value instanceof String text && DECIMAL.matcher(text.trim()).matches()) {
          double converted = Double.parseDouble(text.trim());
          if (Double.isFinite(converted)) {
            return converted;
          }
        }
        break;
      case BOOLEAN:
        if (value instanceof Boolean flag) {
          return flag;
        }
        if ("true".equals(value) || "false".equals(value)) {
          return Boolean.parseBoolean((String) value);
        }
        break;
      default:
        break;
    }
    throw new IllegalArgumentException("must be " + description);
  }

  /** Whether a number has a finite value: not NaN, not an infinity. */
  private static boolean finite(Number number) {
    return !(number instanceof Double || number instanceof Float) || Double.isFinite(number.doubleValue());
  }

  @JsonValue
  public String jsonName() {
    return name().toLowerCase(Locale.ROOT);
  }

  @JsonCreator
  public static ParamType fromJson(String name) {
    return valueOf(name.trim().toUpperCase(Locale.ROOT));
  }
}
