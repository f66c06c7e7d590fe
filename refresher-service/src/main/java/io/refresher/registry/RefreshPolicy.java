package io.refresher.registry;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Locale;

/** When the service keeps a key fresh. */
public enum RefreshPolicy {
  /**
   * While applications read it often (its access rate passes the hot threshold), and for a grace
   * period after; then it is left to expire. The default, and the only policy of template keys.
   */
  HOT,
  /** As long as it is registered, read or not: for the few keys an operator pins. */
  ALWAYS;

  @JsonValue
  public String jsonName() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** The policy named {@code hot} or {@code always}; null for anything else. */
  @JsonCreator
  public static RefreshPolicy fromJson(String name) {
    if (name == null) {
      return null;
    }
    for (RefreshPolicy policy : values()) {
      if (policy.jsonName().equals(name)) {
        return policy;
      }
    }
    return null;
  }
}
