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

  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(AdminApiAuth.class);

  private AdminApiAuth() {}

  /** @param readTokens empty for none: then only the admin tokens are accepted */
  public static void register(JerseyEnvironment jersey, java.util.List<String> adminTokens, java.util.List<String> readTokens) {
    // The ids only (the change log names them): an operator checks which tokens a replica took.
    LOG.info(
        "admin API tokens: role admin {}, role read {} (ids: the first 8 hex digits of each token's SHA-256)",
        adminTokens.stream().map(TokenIds::of).toList(),
        readTokens.stream().map(TokenIds::of).toList());
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
