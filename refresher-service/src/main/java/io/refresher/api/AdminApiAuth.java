package io.refresher.api;

import io.dropwizard.auth.oauth.OAuthCredentialAuthFilter;
import io.dropwizard.jersey.setup.JerseyEnvironment;
import org.glassfish.jersey.server.filter.RolesAllowedDynamicFeature;

/**
 * Authentication and authorisation of the admin API: a bearer token names the role ({@link
 * AdminTokenAuthenticator}), each resource method's {@code @RolesAllowed} says which roles may
 * call it ({@link RoleAuthorizer}). A missing or unknown token is 401 ({@link
 * JsonUnauthorizedHandler}); a known token without the method's role is 403 ({@link
 * ForbiddenMapper}). The token is checked on every request before it is matched ({@link
 * AuthenticateEveryRequest}), the role before the method runs.
 */
public final class AdminApiAuth {

  private AdminApiAuth() {}

  /** @param readTokens empty for none: then only the admin tokens are accepted */
  public static void register(JerseyEnvironment jersey, java.util.List<String> adminTokens, java.util.List<String> readTokens) {
    jersey.register(
        new AuthenticateEveryRequest(
            new OAuthCredentialAuthFilter.Builder<AdminPrincipal>()
                .setAuthenticator(new AdminTokenAuthenticator(adminTokens, readTokens))
                .setAuthorizer(new RoleAuthorizer())
                .setPrefix("Bearer")
                .setRealm("refresher")
                .setUnauthorizedHandler(new JsonUnauthorizedHandler())
                .buildAuthFilter()));
    jersey.register(RolesAllowedDynamicFeature.class);
    jersey.register(new ForbiddenMapper());
  }
}
