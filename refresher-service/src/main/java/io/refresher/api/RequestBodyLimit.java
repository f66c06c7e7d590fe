package io.refresher.api;

import com.fasterxml.jackson.databind.ObjectMapper;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * Caps request bodies (the admin API's are a few hundred bytes). A declared {@code Content-Length}
 * over the cap is answered with 413 at once, without reading the body, and the connection is
 * closed; a chunked body is counted as it is read and fails with {@link TooLargeException} at the
 * first byte over the cap, which {@link ErrorMappers} answers with the same 413.
 */
public final class RequestBodyLimit implements Filter {

  private final long maxBytes;
  private final ObjectMapper json;

  public RequestBodyLimit(long maxBytes, ObjectMapper json) {
    this.maxBytes = maxBytes;
    this.json = json;
  }

  /** The error every refused body gets. */
  static ApiError error(long maxBytes) {
    return ApiError.of(413, "request body too large", "body", "must be at most " + maxBytes + " bytes");
  }

  /** The body went over the cap while it was read. */
  public static final class TooLargeException extends IOException {
    private static final long serialVersionUID = 1L;
    private final long maxBytes;

    TooLargeException(long maxBytes) {
      super("request body over " + maxBytes + " bytes");
      this.maxBytes = maxBytes;
    }

    public long maxBytes() {
      return maxBytes;
    }

    /** This exception among the causes of {@code failure}, if it is there. */
    static Optional<TooLargeException> in(Throwable failure) {
      for (Throwable cause = failure; cause != null; cause = cause.getCause() == cause ? null : cause.getCause()) {
        if (cause instanceof TooLargeException tooLarge) {
          return Optional.of(tooLarge);
        }
      }
      return Optional.empty();
    }
  }

  @Override
  public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
      throws IOException, ServletException {
    HttpServletRequest http = (HttpServletRequest) request;
    long declared = http.getContentLengthLong();
    if (declared > maxBytes) {
      HttpServletResponse refused = (HttpServletResponse) response;
      refused.setStatus(413);
      refused.setContentType("application/json");
      // the body is never read: the connection cannot carry another request after it
      refused.setHeader("Connection", "close");
      refused.getOutputStream().write(json.writeValueAsBytes(error(maxBytes)));
      return;
    }
    // A declared length is enforced by the server; only a body of unknown length is counted here.
    chain.doFilter(declared >= 0 ? request : new Counted(http, maxBytes), response);
  }

  /** A request whose body fails once more than {@code maxBytes} bytes have been read. */
  private static final class Counted extends HttpServletRequestWrapper {
    private final long maxBytes;
    private ServletInputStream stream;

    Counted(HttpServletRequest request, long maxBytes) {
      super(request);
      this.maxBytes = maxBytes;
    }

    @Override
    public synchronized ServletInputStream getInputStream() throws IOException {
      if (stream == null) {
        stream = new CountingStream(super.getInputStream(), maxBytes);
      }
      return stream;
    }

    @Override
    public BufferedReader getReader() throws IOException {
      String encoding = getCharacterEncoding();
      return new BufferedReader(
          new InputStreamReader(getInputStream(), encoding == null ? StandardCharsets.UTF_8.name() : encoding));
    }
  }

  private static final class CountingStream extends ServletInputStream {
    private final ServletInputStream in;
    private final long maxBytes;
    private long read;

    CountingStream(ServletInputStream in, long maxBytes) {
      this.in = in;
      this.maxBytes = maxBytes;
    }

    @Override
    public int read() throws IOException {
      int b = in.read();
      if (b >= 0) {
        count(1);
      }
      return b;
    }

    @Override
    public int read(byte[] buffer, int offset, int length) throws IOException {
      int n = in.read(buffer, offset, length);
      if (n > 0) {
        count(n);
      }
      return n;
    }

    private void count(int n) throws TooLargeException {
      read += n;
      if (read > maxBytes) {
        throw new TooLargeException(maxBytes);
      }
    }

    @Override
    public boolean isFinished() {
      return in.isFinished();
    }

    @Override
    public boolean isReady() {
      return in.isReady();
    }

    @Override
    public void setReadListener(ReadListener listener) {
      in.setReadListener(listener);
    }
  }
}
