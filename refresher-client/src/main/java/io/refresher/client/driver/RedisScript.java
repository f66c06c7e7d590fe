package io.refresher.client.driver;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Objects;

/**
 * A Lua script of the protocol, with the SHA-1 that {@code EVALSHA} names it by. {@code reply}
 * says what it returns (some libraries must be told); {@code readOnly} that it writes nothing
 * (a library may then run it on a replica).
 */
public record RedisScript(String name, String text, Reply reply, boolean readOnly, String sha1) {

  public enum Reply {
    INTEGER,
    LIST
  }

  public RedisScript {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(text, "text");
    Objects.requireNonNull(reply, "reply");
    Objects.requireNonNull(sha1, "sha1");
  }

  public static RedisScript readOnly(String name, String text, Reply reply) {
    return new RedisScript(name, text, reply, true, sha1Of(text));
  }

  public static RedisScript writing(String name, String text, Reply reply) {
    return new RedisScript(name, text, reply, false, sha1Of(text));
  }

  /** Redis's name for a script: the lower-case hex SHA-1 of its UTF-8 text. */
  public static String sha1Of(String text) {
    try {
      byte[] digest = MessageDigest.getInstance("SHA-1").digest(text.getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(digest);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java platform has SHA-1", e);
    }
  }
}
