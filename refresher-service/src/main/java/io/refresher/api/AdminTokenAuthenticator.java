package io.refresher.api;

import io.dropwizard.auth.Authenticator;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Optional;

/** Accepts exactly the configured admin token, compared in constant time. */
public final class AdminTokenAuthenticator implements Authenticator<String, AdminPrincipal> {

  private final byte[] expected;

  public AdminTokenAuthenticator(String token) {
    this.expected = token.getBytes(StandardCharsets.UTF_8);
  }

  @Override
  public Optional<AdminPrincipal> authenticate(String presented) {
    byte[] given = presented.getBytes(StandardCharsets.UTF_8);
    return MessageDigest.isEqual(expected, given) ? Optional.of(new AdminPrincipal("admin")) : Optional.empty();
  }
}
