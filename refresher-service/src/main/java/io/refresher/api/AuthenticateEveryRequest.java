package io.refresher.api;

import io.refresher.registry.ChangeActor;
import org.slf4j.MDC;

import jakarta.annotation.Priority;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.PreMatching;
import io.refresher.registry.InvalidRegistrationException;
import java.io.IOException;

/**
 * Runs the admin token check on every request the API receives, before it is matched to a
 * resource: the README promises that every request needs the token, and Jersey answers some
 * requests without running a resource method at all, so a check bound to resource methods never
 * saw them (an unauthenticated {@code OPTIONS} answered 200 with the allowed methods; a wrong
 * method, 405 listing them; an unknown path, 404).
 */
@PreMatching
@Priority(Priorities.AUTHENTICATION)
public final class AuthenticateEveryRequest implements ContainerRequestFilter {

  private final ContainerRequestFilter authentication;

  /** @param authentication the token check, which throws a 401 when the token is missing or wrong */
  public AuthenticateEveryRequest(ContainerRequestFilter authentication) {
    this.authentication = authentication;
  }

  /**
   * The token belongs in the {@code Authorization} header only. Dropwizard's bearer filter also
   * takes it from an {@code access_token} query parameter, and a URL ends up in request logs,
   * proxies' logs and browser histories: such a request is refused before the token is looked at.
   */
  static final String TOKEN_IN_URL = "access_token";

  @Override
  public void filter(ContainerRequestContext request) throws IOException {
    if (request.getUriInfo().getQueryParameters().containsKey(TOKEN_IN_URL)) {
      throw new InvalidRegistrationException(
          TOKEN_IN_URL, "must not be in the URL (URLs are logged): send the token as 'Authorization: Bearer <token>'");
    }
    ChangeActor.clear(); // nothing of an earlier request on this thread
    authentication.filter(request);
    if (request.getSecurityContext().getUserPrincipal() instanceof AdminPrincipal caller) {
      // Cleared by RequestIds when the request ends.
      ChangeActor.set(new ChangeActor(caller.role(), caller.tokenId(), MDC.get(RequestIds.MDC_KEY)));
    }
  }
}
