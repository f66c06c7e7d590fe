package io.refresher.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.refresher.source.ChangeFeed;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;

/**
 * The {@code changes:} block of a SQL source: the PostgreSQL channel on its datasource whose
 * notifications name changed keys. See {@code docs/sources.md}.
 *
 * <pre>
 *     changes:
 *       channel: product_changed
 *       payload: key        # the payload is the key; or fields: a JSON object filling the
 *                           # placeholders of the templates that use this source
 * </pre>
 */
public class ChangeFeedFactory {

  /** A plain identifier: LISTEN takes it unquoted, and it is folded to lower case. */
  @NotNull
  @Pattern(regexp = "[a-z_][a-z0-9_]{0,62}", message = "must be a lower-case PostgreSQL identifier ([a-z_][a-z0-9_]{0,62})")
  @JsonProperty
  private String channel;

  @NotNull @JsonProperty private ChangeFeed.Payload payload = ChangeFeed.Payload.KEY;

  public String getChannel() {
    return channel;
  }

  public void setChannel(String channel) {
    this.channel = channel;
  }

  public ChangeFeed.Payload getPayload() {
    return payload;
  }

  public void setPayload(ChangeFeed.Payload payload) {
    this.payload = payload;
  }

  public ChangeFeed build() {
    return new ChangeFeed(channel, payload);
  }
}
