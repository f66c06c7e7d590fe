package io.refresher.source;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Locale;

/**
 * Where the changes of a source's data are announced: a PostgreSQL channel ({@code NOTIFY}) on the
 * source's datasource, and how a notification's payload names the keys it changes.
 *
 * @param channel the channel the service listens on
 * @param payload how the payload maps to keys
 */
public record ChangeFeed(String channel, Payload payload) {

  /** How a notification's payload maps to keys. */
  public enum Payload {
    /** The payload is the key itself. */
    KEY,
    /**
     * The payload is a JSON object whose fields fill the placeholders of the templates that use
     * this source: each template whose placeholders are all present yields one key.
     */
    FIELDS;

    @JsonValue
    public String jsonName() {
      return name().toLowerCase(Locale.ROOT);
    }

    @JsonCreator
    public static Payload fromJson(String name) {
      return valueOf(name.trim().toUpperCase(Locale.ROOT));
    }
  }
}
