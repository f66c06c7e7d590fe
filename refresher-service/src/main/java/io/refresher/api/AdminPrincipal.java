package io.refresher.api;

import java.security.Principal;

/** The caller behind a request that presented one of the admin API's tokens, and its one role. */
public record AdminPrincipal(String name, String role) implements Principal {

  static AdminPrincipal admin() {
    return new AdminPrincipal("admin", Roles.ADMIN);
  }

  static AdminPrincipal reader() {
    return new AdminPrincipal("reader", Roles.READ);
  }

  @Override
  public String getName() {
    return name;
  }
}
