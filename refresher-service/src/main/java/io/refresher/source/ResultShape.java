package io.refresher.source;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Locale;

/** How a query's result becomes the cached value. */
public enum ResultShape {
  /** All rows as a JSON array of objects (an empty array when there are none). */
  ROWS,
  /** The first row as a JSON object; no row is a failure and the old value stays. */
  ROW,
  /** The first column of the first row, as text, as-is; no row or a NULL is a failure. */
  SCALAR;

  @JsonValue
  public String jsonName() {
    return name().toLowerCase(Locale.ROOT);
  }

  @JsonCreator
  public static ResultShape fromJson(String name) {
    return valueOf(name.trim().toUpperCase(Locale.ROOT));
  }
}
