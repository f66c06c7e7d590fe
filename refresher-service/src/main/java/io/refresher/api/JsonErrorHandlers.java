package io.refresher.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;
import org.eclipse.jetty.http.HttpException;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpHeaderValue;
import org.eclipse.jetty.http.HttpMethod;
import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * Jetty's own error responses in the API's JSON error shape ({@code {"code":..,"message":..}}),
 * for requests refused before the application sees them: a malformed request line or header (400),
 * a URI or header block over the server's limits (414, 431), an HTTP version Jetty knows but does
 * not serve here ({@code HTTP/3.0}: 505), an ambiguous or badly encoded path (400), a method the
 * server does not allow (405).
 *
 * <p>A request line whose version Jetty could not read is answered 400, not Jetty's 505 ({@link
 * #malformedRequestLine}): its parser takes whatever follows the target's first space as the
 * version, and a line break as the end of an HTTP/0.9 request line, so a space or a line break
 * inside the target ({@code GET /v1/keys/a b}, {@code GET /v1/keys/a\nb HTTP/1.1}) came out as
 * "HTTP Version Not Supported". RFC 9112 (section 3) answers an invalid request line with 400; 505
 * is for a version of HTTP's syntax the server does not speak, and the parser cannot tell {@code
 * b} from {@code HTTP/2.5} (both "Unknown Version"), so both are 400 here.
 *
 * <p>Jetty's default answers with HTML, or, for methods other than GET, POST and HEAD, with no
 * body at all; here every method gets the JSON body, whatever it accepts. After a {@code CONNECT}
 * (which this server never tunnels) the connection is closed: the client may be about to send
 * tunnel bytes, and Jetty would otherwise hold the connection until its idle timeout.
 *
 * <p>Two flavours of the same rendering: one for the server (errors before any context), one for
 * the servlet context the API runs in (errors raised inside it).
 */
public final class JsonErrorHandlers {

  private JsonErrorHandlers() {}

  /** For {@code Server#setErrorHandler}. */
  public static Request.Handler forServer(ObjectMapper json) {
    return new ServerErrors(json);
  }

  /** For the application's servlet context. */
  public static Request.Handler forServletContext(ObjectMapper json) {
    return new ServletContextErrors(json);
  }

  private static final class ServerErrors extends org.eclipse.jetty.server.handler.ErrorHandler {
    private final ObjectMapper json;

    ServerErrors(ObjectMapper json) {
      this.json = json;
      setShowStacks(false);
    }

    @Override
    public boolean errorPageForMethod(String method) {
      return true;
    }

    @Override
    protected void generateResponse(
        Request request, Response response, int code, String message, Throwable cause, Callback callback)
        throws IOException {
      closeAfterConnect(request, response);
      int status = code;
      String text = message;
      if (malformedRequestLine(code, cause)) {
        status = HttpStatus.BAD_REQUEST_400;
        text = MALFORMED_REQUEST_LINE;
        response.setStatus(status);
      }
      if (!generateAcceptableResponse(request, response, callback, JSON, UTF_8, status, text, cause)) {
        callback.succeeded();
      }
    }

    @Override
    protected void writeErrorJson(Request request, PrintWriter writer, int code, String message, Throwable cause) {
      writer.write(body(json, code, message, cause));
    }
  }

  /** Jetty's parser's reasons for a 505 whose request line had no version it could read. */
  private static final Set<String> UNREADABLE_VERSION = Set.of("Unknown Version", "HTTP/0.9 not supported");

  static final String MALFORMED_REQUEST_LINE =
      "Bad request line: it must read 'METHOD target HTTP/1.1', with no space or line break inside the target"
          + " (percent-encode them)";

  /**
   * Whether Jetty's parser refused the request line with 505 for want of a version it could read
   * (not for a version it knows and does not serve, "Unsupported Version").
   */
  static boolean malformedRequestLine(int code, Throwable cause) {
    return code == HttpStatus.HTTP_VERSION_NOT_SUPPORTED_505
        && cause instanceof HttpException failure
        && UNREADABLE_VERSION.contains(failure.getReason());
  }

  private static final class ServletContextErrors extends org.eclipse.jetty.ee10.servlet.ErrorHandler {
    private final ObjectMapper json;

    ServletContextErrors(ObjectMapper json) {
      this.json = json;
      setShowStacks(false);
    }

    @Override
    public boolean errorPageForMethod(String method) {
      return true;
    }

    @Override
    protected void generateResponse(
        Request request, Response response, int code, String message, Throwable cause, Callback callback)
        throws IOException {
      closeAfterConnect(request, response);
      if (!generateAcceptableResponse(request, response, callback, JSON, UTF_8, code, message, cause)) {
        callback.succeeded();
      }
    }

    @Override
    protected void writeErrorJson(Request request, PrintWriter writer, int code, String message, Throwable cause) {
      writer.write(body(json, code, message, cause));
    }
  }

  private static final String JSON = "application/json";
  private static final List<java.nio.charset.Charset> UTF_8 = List.of(StandardCharsets.UTF_8);

  private static void closeAfterConnect(Request request, Response response) {
    if (HttpMethod.CONNECT.is(request.getMethod())) {
      response.getHeaders().put(HttpHeader.CONNECTION, HttpHeaderValue.CLOSE.asString());
    }
  }

  /**
   * The JSON body. Jetty's message is its reason for refusing (such as "URI Too Long" or
   * "Ambiguous URI path segment"); when an unexpected exception caused the error only the status's
   * reason phrase is shown, never the exception's text.
   */
  static String body(ObjectMapper json, int code, String message, Throwable cause) {
    String text = message;
    if (text == null || text.isBlank() || (cause != null && !(cause instanceof HttpException))) {
      text = HttpStatus.getMessage(code);
    }
    try {
      return json.writeValueAsString(ApiError.of(code, text));
    } catch (JsonProcessingException e) {
      return "{\"code\":" + code + "}";
    }
  }
}
