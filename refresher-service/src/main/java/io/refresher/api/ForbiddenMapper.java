package io.refresher.api;

import jakarta.ws.rs.ForbiddenException;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * 403 in the API's error shape when an authenticated caller lacks the role of a method: Jersey's
 * {@code RolesAllowedDynamicFeature} throws {@link ForbiddenException} before the method runs, so
 * nothing was changed. The only role that can be refused is {@code read}, on a change.
 */
public final class ForbiddenMapper implements ExceptionMapper<ForbiddenException> {

  private static final Logger LOG = LoggerFactory.getLogger(ForbiddenMapper.class);

  @Override
  public Response toResponse(ForbiddenException e) {
    LOG.debug("refused a change presented with the read token");
    return ApiErrors.response(
        ApiError.of(
            403,
            "the read token may only read (GET); changes need the admin token",
            HttpHeaders.AUTHORIZATION,
            "must be 'Bearer <admin token>' for PUT, POST and DELETE"));
  }
}
