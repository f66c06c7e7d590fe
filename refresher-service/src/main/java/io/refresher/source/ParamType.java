package io.refresher.source;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.math.BigDecimal;
import java.util.Locale;

/**
 * The type of a source parameter. A registration's parameter values arrive as JSON scalars and are
 * converted here, so that a bad value is refused at registration time rather than at every refresh.
 */
public enum ParamType {
  STRING("a string"),
  LONG("a whole number"),
  DOUBLE("a finite number"),
  BOOLEAN("true or false");

  private final String description;

  ParamType(String description) {
    this.description = description;
  }

  public String description() {
    return description;
  }

  /**
   * Converts a JSON scalar (as Jackson reads it: String, Integer, Long, BigInteger, Double,
   * BigDecimal, Boolean) into the value bound to the query.
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
        if (value instanceof Number || value instanceof Boolean) {
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
        if (value instanceof String text) {
          try {
            return Long.parseLong(text.trim());
          } catch (NumberFormatException e) {
            break;
          }
        }
        break;
      case DOUBLE:
        // Finite only: "NaN", "Infinity" and digits beyond a double's range would be stored and
        // bound as non-numbers that no query means.
        if (value instanceof Number number && Double.isFinite(number.doubleValue())) {
          return number.doubleValue();
        }
        if (value instanceof String text) {
          try {
            double parsed = Double.parseDouble(text.trim());
            if (Double.isFinite(parsed)) {
              return parsed;
            }
          } catch (NumberFormatException e) {
            break;
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

  @JsonValue
  public String jsonName() {
    return name().toLowerCase(Locale.ROOT);
  }

  @JsonCreator
  public static ParamType fromJson(String name) {
    return valueOf(name.trim().toUpperCase(Locale.ROOT));
  }
}
