package io.refresher.api;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * A token's id: the first 8 hex digits of its SHA-256, what the change log and the start-up log
 * name instead of the token. An operator holding a token finds its id with {@code printf %s
 * "$TOKEN" | sha256sum | cut -c1-8}; 32 bits of a hash say nothing usable about a token of at least
 * 16 characters.
 */
public final class TokenIds {

  private TokenIds() {}

  public static String of(String token) {
    try {
      byte[] hash = MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(hash, 0, 4);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JVM has SHA-256", e);
    }
  }
}
