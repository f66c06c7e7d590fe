package io.refresher.refresh.audit;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * What the audit logs in place of a value: the first 64 bits of its SHA-256, in hex. Enough to tell
 * two values apart and to match a log line with a value an operator holds; a value itself (which
 * may be personal data) never reaches a log.
 */
public final class ValueDigest {

  private ValueDigest() {}

  public static String of(String value) {
    try {
      byte[] digest = MessageDigest.getInstance("SHA-256").digest(value.getBytes(StandardCharsets.UTF_8));
      return "sha256:" + HexFormat.of().formatHex(digest, 0, 8);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JVM has SHA-256", e);
    }
  }
}
