package io.refresher.api;

import java.security.Principal;

/** The operator behind a request that presented the admin token. */
public record AdminPrincipal(String name) implements Principal {
  @Override
  public String getName() {
    return name;
  }
}
