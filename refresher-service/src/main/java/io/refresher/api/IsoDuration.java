package io.refresher.api;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.deser.std.StdScalarDeserializer;
import java.io.IOException;
import java.time.Duration;
import java.time.format.DateTimeParseException;

/**
 * A TTL as an ISO-8601 duration string ({@code PT5M}), exactly: Jackson's own reader trims the
 * text first, and Java's trim removes every character up to U+0020, so {@code "PT1S\u0000"} was
 * read as one second; it also takes a bare number as seconds. Anything but the duration itself is
 * refused (400 naming the field).
 */
public final class IsoDuration extends StdScalarDeserializer<Duration> {

  private static final long serialVersionUID = 1L;

  public IsoDuration() {
    super(Duration.class);
  }

  /**
   * {@code Duration.parse}, which also takes a {@code T} with no time after it ({@code P1DT}); ISO
   * 8601 and the API's documented pattern do not.
   *
   * @throws DateTimeParseException when the text is not an ISO-8601 duration
   */
  public static Duration parse(String text) {
    if (!text.isEmpty() && (text.charAt(text.length() - 1) == 'T' || text.charAt(text.length() - 1) == 't')) {
      throw new DateTimeParseException("a T must be followed by hours, minutes or seconds", text, text.length() - 1);
    }
    return Duration.parse(text);
  }

  @Override
  public Duration deserialize(JsonParser parser, DeserializationContext context) throws IOException {
    if (!parser.hasToken(JsonToken.VALUE_STRING)) {
      return (Duration) context.handleUnexpectedToken(Duration.class, parser);
    }
    String text = parser.getText();
    try {
      return parse(text);
    } catch (DateTimeParseException e) {
      return (Duration) context.handleWeirdStringValue(Duration.class, text, "not an ISO-8601 duration such as PT5M");
    }
  }
}
