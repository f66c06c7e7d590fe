package io.refresher.http;

import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;

import io.refresher.refresh.Loaded;
import io.refresher.source.ValueTtl;
import io.refresher.source.NotFound;
import io.refresher.client.protocol.NotFoundMarker;
import java.util.OptionalDouble;
import io.refresher.source.SourceException;
import java.io.IOException;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.InstantSource;
import java.time.Instant;
import java.util.Optional;
import java.util.Set;
import javax.net.ssl.SSLException;
import org.apache.hc.client5.http.ClientProtocolException;
import org.apache.hc.client5.http.ConnectTimeoutException;
import org.apache.hc.client5.http.classic.methods.HttpUriRequestBase;
import org.apache.hc.client5.http.config.RequestConfig;
import org.apache.hc.core5.http.ClassicHttpResponse;
import org.apache.hc.core5.http.ContentType;
import org.apache.hc.core5.http.Header;
import org.apache.hc.core5.http.HttpEntity;
import org.apache.hc.core5.http.HttpHeaders;
import org.apache.hc.core5.http.HttpStatus;
import org.apache.hc.core5.http.NoHttpResponseException;
import org.apache.hc.core5.http.io.entity.ByteArrayEntity;
import org.apache.hc.core5.util.Timeout;

/**
 * Sends one rendered request of one HTTP source and turns what comes back into a value, an
 * "unchanged", or a {@link SourceException} of the right kind. The whole exchange (waiting for a
 * pooled connection, connecting, TLS, the response and its body) runs within the source's timeout.
 *
 * <p>A response read to its end gives its connection back to the pool; any other outcome (too
 * large, too slow, an error body longer than its snippet) closes the connection instead, because
 * closing a body's stream would otherwise read the rest of it first.
 */
final class HttpExchange {

  /** Of an error body, at most this much is read (all of it, when shorter: the connection is kept)... */
  static final int ERROR_BODY_BYTES = 4096;

  /** ...and at most this much logged (never recorded on the key: a body can quote anything). */
  static final int SNIPPET_CHARS = 200;

  /** The longest reason phrase kept in a message: the server writes it. */
  static final int REASON_CHARS = 64;

  private final EndpointClient endpoint;
  private final RequestDeadlines deadlines;
  private final Duration timeout;
  private final RequestConfig config;
  private final Set<Integer> accepted;
  private final ResponseValue value;
  private final long maxValueBytes;
  private final InstantSource clock;
  /** When the source takes its values' TTL from {@code Cache-Control}; null otherwise. */
  private final ValueTtl valueTtl;
  /** The source's rule for "not found" statuses; null when it has none. */
  private final NotFound notFound;

  HttpExchange(
      EndpointClient endpoint,
      RequestDeadlines deadlines,
      Duration timeout,
      Set<Integer> accepted,
      ResponseValue value,
      long maxValueBytes,
      InstantSource clock,
      ValueTtl valueTtl,
      NotFound notFound) {
    this.clock = clock;
    this.notFound = notFound;
    this.valueTtl = valueTtl != null && valueTtl.cacheControl() ? valueTtl : null;
    this.endpoint = endpoint;
    this.deadlines = deadlines;
    this.timeout = timeout;
    this.accepted = Set.copyOf(accepted);
    this.value = value;
    this.maxValueBytes = maxValueBytes;
    Duration read = endpoint.settings().readTimeout();
    this.config =
        RequestConfig.custom()
            .setRedirectsEnabled(false)
            .setAuthenticationEnabled(false)
            // the deadline ends the whole exchange; these only keep a single wait from outliving it
            .setConnectionRequestTimeout(Timeout.of(timeout))
            .setResponseTimeout(Timeout.of(read.compareTo(timeout) < 0 ? read : timeout))
            .build();
  }

  /**
   * @param label names the source and the request in messages ({@code source 'x' (GET /p at endpoint 'e')})
   * @param body the request body, already written; null for none
   * @param conditional the revalidation header, when a validator was stored with the value
   */
  Loaded run(
      HttpRequestTemplate.Rendered rendered,
      byte[] body,
      Optional<HttpValidators.Conditional> conditional,
      String label)
      throws SourceException {
    HttpUriRequestBase request = new HttpUriRequestBase(rendered.method(), rendered.uri());
    request.setConfig(config);
    for (HttpRequestTemplate.Header header : rendered.headers()) {
      request.setHeader(header.name(), header.value());
    }
    conditional.ifPresent(header -> request.setHeader(header.name(), header.value()));
    // The refresh's trace goes on at the source: the W3C traceparent of the span current on this
    // thread (the source's step of the refresh). While tracing is off no span is, and none is sent.
    W3CTraceContextPropagator.getInstance().inject(Context.current(), request, (carrier, name, value) -> carrier.setHeader(name, value));
    if (body != null) {
      request.setEntity(new ByteArrayEntity(body, ContentType.APPLICATION_JSON));
    }
    try (RequestDeadlines.Deadline deadline = deadlines.start(request, timeout)) {
      try {
        ClassicHttpResponse response = endpoint.client().executeOpen(null, request, null);
        Handled handled = new Handled();
        try {
          return handle(response, conditional.isPresent(), deadline, label, handled);
        } finally {
          if (!handled.complete) {
            request.cancel(); // close the connection: do not drain the rest of the body
          }
          closeQuietly(response);
        }
      } catch (IOException e) {
        throw translate(e, deadline.passed(), label);
      }
    }
  }

  /**
   * Closing a response whose connection was cancelled fails (the socket is closed); and a failure
   * to give back the connection of a response already read changes nothing about its value.
   */
  private static void closeQuietly(ClassicHttpResponse response) {
    try {
      response.close();
    } catch (IOException e) {
      // nothing to do: the connection is closed either way
    }
  }

  /** Whether the response was read to its end (its connection can be reused). */
  private static final class Handled {
    boolean complete;
  }

  private Loaded handle(
      ClassicHttpResponse response, boolean conditional, RequestDeadlines.Deadline deadline, String label, Handled handled)
      throws IOException, SourceException {
    int status = response.getCode();
    HttpEntity entity = response.getEntity();
    if (status == HttpStatus.SC_NOT_MODIFIED && conditional) {
      handled.complete = entity == null || drained(entity, deadline);
      return new Loaded.Unchanged(ttl(response));
    }
    if (notFound != null && notFound.httpStatuses().contains(status)) {
      // the source says the thing does not exist: known absent, for the rule's TTL
      handled.complete = entity == null || drained(entity, deadline);
      return new Loaded.Value(NotFoundMarker.VALUE, null, notFound.ttl());
    }
    if (!accepted.contains(status)) {
      throw statusFailure(response, entity, deadline, label, handled, clock);
    }
    if (entity == null) {
      handled.complete = true;
      return new Loaded.Value(value.of(new byte[0], null, label), validator(response), ttl(response));
    }
    long declared = entity.getContentLength();
    if (declared > maxValueBytes) {
      throw new SourceException(
          SourceException.Kind.VALUE_TOO_LARGE,
          label + " answered a body of " + declared + " bytes (Content-Length), over the limit of " + maxValueBytes
              + " bytes; not read");
    }
    // The stream is not closed here: at its end the connection went back to the pool by itself,
    // and before its end closing it would read the rest (the caller closes the connection instead).
    byte[] body = BoundedBody.read(entity.getContent(), maxValueBytes, deadline, label);
    handled.complete = true;
    return new Loaded.Value(value.of(body, charset(entity), label), validator(response), ttl(response));
  }

  /** The TTL the response's {@code Cache-Control} gives the value, bounded; null when not asked for or not said. */
  private Duration ttl(ClassicHttpResponse response) {
    if (valueTtl == null) {
      return null;
    }
    StringBuilder directives = new StringBuilder();
    for (Header header : response.getHeaders(HttpHeaders.CACHE_CONTROL)) {
      directives.append(directives.length() == 0 ? "" : ",").append(header.getValue());
    }
    OptionalDouble seconds = CacheControl.sharedMaxAgeSeconds(directives.toString());
    return seconds.isPresent() ? valueTtl.ofSeconds(seconds.getAsDouble()) : null;
  }

  private static boolean drained(HttpEntity entity, RequestDeadlines.Deadline deadline) throws IOException {
    return BoundedBody.prefix(entity.getContent(), ERROR_BODY_BYTES, deadline).complete();
  }

  private static String validator(ClassicHttpResponse response) {
    return HttpValidators.of(header(response, HttpHeaders.ETAG), header(response, HttpHeaders.LAST_MODIFIED)).orElse(null);
  }

  private static String header(ClassicHttpResponse response, String name) {
    Header header = response.getFirstHeader(name);
    return header == null ? null : header.getValue();
  }

  private static String charset(HttpEntity entity) {
    ContentType type = ContentType.parseLenient(entity.getContentType());
    return type == null ? null : type.getParameter("charset");
  }

  /**
   * A status the source does not accept: its code and reason, and its Retry-After on 429 and 503;
   * the start of its body is the detail, for the log only.
   */
  private static SourceException statusFailure(
      ClassicHttpResponse response,
      HttpEntity entity,
      RequestDeadlines.Deadline deadline,
      String label,
      Handled handled,
      InstantSource clock)
      throws IOException {
    int status = response.getCode();
    Duration retryAfter = null;
    if (status == HttpStatus.SC_TOO_MANY_REQUESTS || status == HttpStatus.SC_SERVICE_UNAVAILABLE) {
      retryAfter = RetryAfter.parse(header(response, HttpHeaders.RETRY_AFTER), header(response, HttpHeaders.DATE), clock.instant());
    }
    String snippet = "";
    if (entity == null) {
      handled.complete = true;
    } else {
      BoundedBody.Read read = BoundedBody.prefix(entity.getContent(), ERROR_BODY_BYTES, deadline);
      handled.complete = read.complete();
      snippet = snippet(read.bytes(), read.complete());
    }
    StringBuilder message = new StringBuilder(label).append(" answered ").append(status);
    if (response.getReasonPhrase() != null && !response.getReasonPhrase().isBlank()) {
      message.append(' ').append(oneLine(response.getReasonPhrase(), REASON_CHARS, true));
    }
    if (status >= 300 && status < 400) {
      message.append(" (redirects are not followed)");
    }
    if (retryAfter != null) {
      message.append("; Retry-After ").append(retryAfter.toSeconds()).append(" s");
    }
    String detail = snippet.isEmpty() ? null : "body: " + snippet;
    return new SourceException(SourceException.Kind.HTTP_STATUS, message.toString(), detail, null, retryAfter);
  }

  /** The start of a body as one line of text: control characters and runs of white space become one space. */
  static String snippet(byte[] bytes, boolean complete) {
    return oneLine(new String(bytes, StandardCharsets.UTF_8), SNIPPET_CHARS, complete);
  }

  private static String oneLine(String text, int maxChars, boolean complete) {
    StringBuilder out = new StringBuilder(Math.min(text.length(), maxChars + 1));
    boolean space = false;
    for (int i = 0; i < text.length() && out.length() < maxChars; i++) {
      char c = text.charAt(i);
      if (Character.isWhitespace(c) || Character.isISOControl(c)) {
        space = out.length() > 0;
        continue;
      }
      if (space) {
        out.append(' ');
        space = false;
      }
      out.append(c);
    }
    boolean cut = out.length() >= maxChars || !complete;
    return cut ? out + "..." : out.toString();
  }

  /** An I/O failure as the kind the refresh path reports: timeouts as TIMEOUT, everything else as ERROR. */
  SourceException translate(IOException e, boolean deadlinePassed, String label) {
    if (deadlinePassed) {
      return new SourceException(
          SourceException.Kind.TIMEOUT, label + " timed out after " + timeout.toMillis() + " ms (the source's timeout)", e);
    }
    HttpEndpointSettings settings = endpoint.settings();
    if (e instanceof ConnectTimeoutException) {
      return new SourceException(
          SourceException.Kind.TIMEOUT,
          label + " could not connect within the endpoint's connectTimeout (" + settings.connectTimeout().toMillis() + " ms)",
          e);
    }
    if (e instanceof SocketTimeoutException) {
      return new SourceException(
          SourceException.Kind.TIMEOUT, label + " timed out: the server sent nothing for " + responseWaitMillis() + " ms", e);
    }
    if (e instanceof UnknownHostException) {
      return new SourceException(SourceException.Kind.ERROR, label + " failed: unknown host " + e.getMessage(), e);
    }
    if (e instanceof ConnectException) {
      return new SourceException(SourceException.Kind.ERROR, label + " could not connect: " + e.getMessage(), e);
    }
    if (e instanceof SSLException) {
      return new SourceException(SourceException.Kind.ERROR, label + " failed in TLS: " + e.getMessage(), e);
    }
    if (e instanceof NoHttpResponseException) {
      return new SourceException(
          SourceException.Kind.ERROR, label + " failed: the server closed the connection without answering", e);
    }
    // These two messages may quote what the server sent: the log's only.
    if (e instanceof ClientProtocolException) {
      return new SourceException(SourceException.Kind.ERROR, label + " failed: the answer is not valid HTTP", e.getMessage(), e, null);
    }
    return new SourceException(
        SourceException.Kind.ERROR, label + " failed: " + e.getClass().getSimpleName(), e.getMessage(), e, null);
  }

  private long responseWaitMillis() {
    return config.getResponseTimeout().toMilliseconds();
  }
}
