package io.refresher.registry;

import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * What a registrable key looks like. Keys are Redis keys exactly as applications read them, so
 * almost anything goes; the limits keep the registry, logs and the metadata key sane.
 */
public final class KeyRules {

  /** Longest key, in UTF-8 bytes. Redis allows more, but a longer key is almost always a bug. */
  public static final int MAX_KEY_BYTES = 512;

  /** The service's own keys live under this prefix; registering one would corrupt its state. */
  public static final String RESERVED_PREFIX = "refresher:";

  private KeyRules() {}

  /** The broken rule, if any, phrased for an error message. */
  public static Optional<String> violation(String key) {
    if (key == null || key.isEmpty()) {
      return Optional.of("must not be empty");
    }
    if (key.getBytes(StandardCharsets.UTF_8).length > MAX_KEY_BYTES) {
      return Optional.of("must be at most " + MAX_KEY_BYTES + " bytes in UTF-8");
    }
    for (int i = 0; i < key.length(); i++) {
      char c = key.charAt(i);
      if (Character.getType(c) == Character.CONTROL
          || c == '\u2028'
          || c == '\u2029') {
        return Optional.of("must not contain control characters or line separators");
      }
    }
    if (TextRules.hasLoneSurrogate(key)) {
      return Optional.of("must be valid UTF-8 text");
    }
    if (key.equals(".") || key.equals("..")) {
      // A path segment of its own: clients and servers resolve it away (/v1/keys/.. is /v1/), so
      // such a key could not be addressed reliably.
      return Optional.of("must not be '.' or '..'");
    }
    if (key.startsWith(RESERVED_PREFIX)) {
      return Optional.of("must not start with '" + RESERVED_PREFIX + "' (reserved for the service)");
    }
    return Optional.empty();
  }
}
