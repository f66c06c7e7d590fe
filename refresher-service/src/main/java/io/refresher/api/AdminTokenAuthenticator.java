package io.refresher.api;

import io.dropwizard.auth.Authenticator;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Optional;

/**
 * Accepts exactly the configured admin token (role {@code admin}) or read token (role {@code
 * read}). Both are compared on every request, in constant time, so that neither the answer's
 * timing nor which comparison ran tells a caller how close a guess came. Tokens are never logged.
 */
public final class AdminTokenAuthenticator implements Authenticator<String, AdminPrincipal> {

  private final byte[] adminToken;
  /** Null when no read token is configured: then nothing authenticates as {@code read}. */
  private final byte[] readToken;

  /**
   * @param adminToken the token of role {@code admin}; not blank
   * @param readToken the token of role {@code read}, or null (or blank) for none
   */
  public AdminTokenAuthenticator(String adminToken, String readToken) {
    if (adminToken == null || adminToken.isBlank()) {
      throw new IllegalArgumentException("the admin token must not be blank");
    }
    this.adminToken = adminToken.getBytes(StandardCharsets.UTF_8);
    this.readToken = readToken == null || readToken.isBlank() ? null : readToken.getBytes(StandardCharsets.UTF_8);
  }

  @Override
  public Optional<AdminPrincipal> authenticate(String presented) {
    if (presented == null || presented.isEmpty()) {
      return Optional.empty();
    }
    byte[] given = presented.getBytes(StandardCharsets.UTF_8);
    // The configured token first: MessageDigest.isEqual's time depends on its first argument's
    // length only, never on how many leading bytes match.
    boolean admin = MessageDigest.isEqual(adminToken, given);
    boolean read = readToken != null && MessageDigest.isEqual(readToken, given);
    if (admin) {
      return Optional.of(AdminPrincipal.admin());
    }
    return read ? Optional.of(AdminPrincipal.reader()) : Optional.empty();
  }
}
