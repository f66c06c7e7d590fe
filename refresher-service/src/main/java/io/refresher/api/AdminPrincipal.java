package io.refresher.api;

import java.security.Principal;

/**
 * The caller behind a request that presented one of the admin API's tokens, its one role, and the
 * token's id ({@link TokenIds}), which the change log records instead of the token.
 */
public record AdminPrincipal(String name, String role, String tokenId) implements Principal {

  static AdminPrincipal admin(String tokenId) {
    return new AdminPrincipal("admin", Roles.ADMIN, tokenId);
  }

  static AdminPrincipal reader(String tokenId) {
    return new AdminPrincipal("reader", Roles.READ, tokenId);
  }

  @Override
  public String getName() {
    return name;
  }
}
