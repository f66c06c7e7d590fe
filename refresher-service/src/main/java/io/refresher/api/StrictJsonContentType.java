package io.refresher.api;

import jakarta.annotation.Priority;
import jakarta.ws.rs.NotSupportedException;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.PreMatching;
import jakarta.ws.rs.core.HttpHeaders;
import java.util.List;
import java.util.Locale;

/**
 * A request body is read only when it is declared as {@code application/json}, optionally with
 * {@code charset=utf-8}; anything else is refused with 415 before the body is read. Jersey alone is
 * lenient: its JSON reader takes every {@code application/*+json} type ({@code merge-patch+json},
 * whose meaning is a different one) and its header parser shrugs off {@code application/json;;;}.
 * Runs after the token check, so an unauthenticated request gets its 401 first.
 */
@PreMatching
@Priority(Priorities.HEADER_DECORATOR)
public final class StrictJsonContentType implements ContainerRequestFilter {

  @Override
  public void filter(ContainerRequestContext request) {
    if (!request.hasEntity()) {
      return;
    }
    List<String> declared = request.getHeaders().get(HttpHeaders.CONTENT_TYPE);
    if (declared == null || declared.size() != 1 || !isJson(declared.get(0))) {
      throw new NotSupportedException();
    }
  }

  /** {@code application/json}, with no parameter but {@code charset=utf-8} (any case, quoted or not). */
  static boolean isJson(String contentType) {
    String[] parts = contentType.split(";", -1);
    if (!parts[0].trim().equalsIgnoreCase("application/json")) {
      return false;
    }
    for (int i = 1; i < parts.length; i++) {
      String parameter = parts[i].trim();
      int equals = parameter.indexOf('=');
      if (equals <= 0 || !parameter.substring(0, equals).trim().equalsIgnoreCase("charset")) {
        return false;
      }
      String value = parameter.substring(equals + 1).trim();
      if (value.length() >= 2 && value.startsWith("\"") && value.endsWith("\"")) {
        value = value.substring(1, value.length() - 1);
      }
      if (!value.toLowerCase(Locale.ROOT).equals("utf-8")) {
        return false;
      }
    }
    return true;
  }
}
