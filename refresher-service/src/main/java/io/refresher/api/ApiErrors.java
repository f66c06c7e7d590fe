package io.refresher.api;

import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

/** Builds JSON error responses. */
final class ApiErrors {

  private ApiErrors() {}

  static Response response(ApiError error) {
    return Response.status(error.code()).type(MediaType.APPLICATION_JSON_TYPE).entity(error).build();
  }
}
