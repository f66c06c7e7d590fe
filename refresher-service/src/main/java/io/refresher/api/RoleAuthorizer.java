package io.refresher.api;

import io.dropwizard.auth.Authorizer;
import jakarta.ws.rs.container.ContainerRequestContext;

/**
 * A principal is in exactly its own role. That the admin may also read is stated where it
 * matters, on each GET method ({@code @RolesAllowed({READ, ADMIN})}), not implied here.
 */
public final class RoleAuthorizer implements Authorizer<AdminPrincipal> {
  @Override
  public boolean authorize(AdminPrincipal principal, String role, ContainerRequestContext request) {
    return principal.role().equals(role);
  }
}
