package io.refresher.api;

import io.dropwizard.auth.Authenticator;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Collection;
import java.util.List;
import java.util.Optional;

/**
 * Accepts exactly one of the configured admin tokens (role {@code admin}) or read tokens (role
 * {@code read}). All are compared on every request, in constant time, so that neither the answer's
 * timing nor which comparison ran tells a caller how close a guess came. Tokens are never logged.
 */
public final class AdminTokenAuthenticator implements Authenticator<String, AdminPrincipal> {

  private final List<byte[]> adminTokens;
  /** Empty when no read token is configured: then nothing authenticates as {@code read}. */
  private final List<byte[]> readTokens;

  /**
   * @param adminToken the token of role {@code admin}; not blank
   * @param readToken the token of role {@code read}, or null (or blank) for none
   */
  public AdminTokenAuthenticator(String adminToken, String readToken) {
    this(adminToken == null ? List.of() : List.of(adminToken), readToken == null ? List.of() : List.of(readToken));
  }

  /**
   * @param adminTokens the tokens of role {@code admin} (several while a rotation overlaps them);
   *     at least one that is not blank
   * @param readTokens the tokens of role {@code read}; blanks are left out
   */
  public AdminTokenAuthenticator(Collection<String> adminTokens, Collection<String> readTokens) {
    this.adminTokens = bytes(adminTokens);
    this.readTokens = bytes(readTokens);
    if (this.adminTokens.isEmpty()) {
      throw new IllegalArgumentException("the admin token must not be blank");
    }
  }

  private static List<byte[]> bytes(Collection<String> tokens) {
    return tokens.stream().filter(t -> t != null && !t.isBlank()).map(t -> t.getBytes(StandardCharsets.UTF_8)).toList();
  }

  @Override
  public Optional<AdminPrincipal> authenticate(String presented) {
    if (presented == null || presented.isEmpty()) {
      return Optional.empty();
    }
    byte[] given = presented.getBytes(StandardCharsets.UTF_8);
    // Every configured token is compared, none skipped once one matched: the answer's timing says
    // neither which token matched nor how many there are. The configured token first:
    // MessageDigest.isEqual's time depends on its first argument's length only, never on how many
    // leading bytes match.
    boolean admin = false;
    for (byte[] token : adminTokens) {
      admin |= MessageDigest.isEqual(token, given);
    }
    boolean read = false;
    for (byte[] token : readTokens) {
      read |= MessageDigest.isEqual(token, given);
    }
    // Hashed only once it matched: the id of the presented token is that of the configured one.
    if (admin) {
      return Optional.of(AdminPrincipal.admin(TokenIds.of(presented)));
    }
    return read ? Optional.of(AdminPrincipal.reader(TokenIds.of(presented))) : Optional.empty();
  }
}
