package io.refresher.api;

import io.refresher.registry.ChangeActor;

import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.UUID;
import java.util.regex.Pattern;
import org.slf4j.MDC;

/**
 * A request id on every request to the admin API: the caller's {@code X-Request-Id} when it is a
 * plain token (at most {@value #MAX_LENGTH} letters, digits, {@code .}, {@code _}, {@code -}; a
 * header that is not is replaced, never logged), otherwise a new random UUID. It is in the logging
 * context ({@code requestId} in the MDC, so in every log line the request causes on its thread, and
 * a field of the JSON layout) and sent back in the response's {@code X-Request-Id}, so a caller can
 * find the lines of its request.
 */
public final class RequestIds implements Filter {

  public static final String HEADER = "X-Request-Id";
  public static final String MDC_KEY = "requestId";
  static final int MAX_LENGTH = 128;
  private static final Pattern ACCEPTED = Pattern.compile("[A-Za-z0-9._-]{1," + MAX_LENGTH + "}");

  @Override
  public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
      throws IOException, ServletException {
    String id = idOf(((HttpServletRequest) request).getHeader(HEADER));
    ((HttpServletResponse) response).setHeader(HEADER, id);
    try (MDC.MDCCloseable ignored = MDC.putCloseable(MDC_KEY, id)) {
      chain.doFilter(request, response);
    } finally {
      ChangeActor.clear(); // set by AuthenticateEveryRequest for this request only
    }
  }

  /** The caller's id when it is acceptable, else a new one. */
  static String idOf(String header) {
    if (header != null && ACCEPTED.matcher(header).matches()) {
      return header;
    }
    return UUID.randomUUID().toString();
  }
}
