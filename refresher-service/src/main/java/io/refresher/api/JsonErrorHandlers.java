package io.refresher.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.List;
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
 * a URI or header block over the server's limits (414, 431), an unknown HTTP version (505), an
 * ambiguous or badly encoded path (400), a method the server does not allow (405).
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
      if (!generateAcceptableResponse(request, response, callback, JSON, UTF_8, code, message, cause)) {
        callback.succeeded();
      }
    }

    @Override
    protected void writeErrorJson(Request request, PrintWriter writer, int code, String message, Throwable cause) {
      writer.write(body(json, code, message, cause));
    }
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
