package io.refresher.api;

import io.dropwizard.auth.UnauthorizedHandler;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.Response;

/** 401 with a JSON body naming the header and the rule, like every other error. */
public final class JsonUnauthorizedHandler implements UnauthorizedHandler {
  @Override
  public Response buildResponse(String prefix, String realm) {
    return Response.fromResponse(
            ApiErrors.response(
                ApiError.of(
                    401,
                    "missing or invalid admin token",
                    HttpHeaders.AUTHORIZATION,
                    "must be 'Bearer <admin token>'")))
        .header(HttpHeaders.WWW_AUTHENTICATE, prefix + " realm=\"" + realm + "\"")
        .build();
  }
}
