package io.refresher.testing;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * HTTP/1.1 over a plain socket, byte for byte as the test writes it: no client normalises the path
 * ({@code curl --path-as-is}), fixes a malformed request line or refuses an odd method. One request
 * and one response per connection.
 */
public final class RawHttp {

  private static final Duration READ_TIMEOUT = Duration.ofSeconds(30);

  private final int port;
  private final Duration readTimeout;

  public RawHttp(int port) {
    this(port, READ_TIMEOUT);
  }

  /** @param readTimeout how long a read may wait: a server silent for longer fails the exchange (a hang) */
  public RawHttp(int port, Duration readTimeout) {
    this.port = port;
    this.readTimeout = readTimeout;
  }

  /** A response as it came off the wire; header names in lower case. */
  public record Reply(int status, String statusLine, Map<String, List<String>> headers, String body, boolean closedByServer) {

    public Optional<String> header(String name) {
      List<String> values = headers.get(name.toLowerCase(Locale.ROOT));
      return values == null || values.isEmpty() ? Optional.empty() : Optional.of(values.get(0));
    }

    public String contentType() {
      return header("Content-Type").orElse("");
    }
  }

  /** Sends {@code request} and reads the response. */
  public Reply exchange(String request) throws IOException {
    return exchange(request.getBytes(StandardCharsets.UTF_8), null, null);
  }

  /**
   * Sends {@code head}, then lets {@code body} write the rest on another thread while the response
   * is read (a server may answer before the body is sent, or instead of reading it), and, when
   * {@code waitForClose} is given, waits that long after the response for the server to close the
   * connection.
   */
  public Reply exchange(byte[] head, Consumer<OutputStream> body, Duration waitForClose) throws IOException {
    try (Socket socket = new Socket("127.0.0.1", port)) {
      socket.setSoTimeout((int) readTimeout.toMillis());
      OutputStream out = socket.getOutputStream();
      boolean headSent = true;
      try {
        out.write(head);
        out.flush();
      } catch (IOException e) {
        // The server may answer and close before it has read it all (a request line over its
        // limit): the answer is still there to read.
        headSent = false;
      }
      CompletableFuture<Void> writer =
          body == null || !headSent ? CompletableFuture.completedFuture(null) : CompletableFuture.runAsync(() -> body.accept(out));
      InputStream in = socket.getInputStream();
      String statusLine = readLine(in);
      if (statusLine == null) {
        throw new IOException("connection closed before a status line");
      }
      Map<String, List<String>> headers = new LinkedHashMap<>();
      for (String line = readLine(in); line != null && !line.isEmpty(); line = readLine(in)) {
        int colon = line.indexOf(':');
        headers
            .computeIfAbsent(line.substring(0, colon).trim().toLowerCase(Locale.ROOT), name -> new ArrayList<>())
            .add(line.substring(colon + 1).trim());
      }
      int status = Integer.parseInt(statusLine.split(" ")[1]);
      // HEAD, 1xx, 204 and 304 responses have no body, whatever their headers say (RFC 9112, 6.3)
      boolean bodiless = startsWith(head, "HEAD ") || status < 200 || status == 204 || status == 304;
      String body1 = bodiless ? "" : readBody(in, headers);
      boolean closed = false;
      if (waitForClose != null) {
        socket.setSoTimeout((int) waitForClose.toMillis());
        try {
          closed = in.read() == -1;
        } catch (SocketTimeoutException e) {
          closed = false;
        } catch (IOException e) {
          closed = true; // reset by the server
        }
      }
      writer.cancel(true);
      return new Reply(status, statusLine, headers, body1, closed);
    }
  }

  /** Writes {@code total} bytes of {@code filler} in chunks of 64 KiB; stops quietly when the server closes. */
  public static Consumer<OutputStream> bytes(long total, byte filler) {
    return out -> {
      byte[] block = new byte[64 * 1024];
      java.util.Arrays.fill(block, filler);
      try {
        for (long sent = 0; sent < total; sent += block.length) {
          out.write(block, 0, (int) Math.min(block.length, total - sent));
        }
        out.flush();
      } catch (IOException e) {
        // the server answered and closed: expected when it refuses the body
      }
    };
  }

  /** The same, as HTTP/1.1 chunks, with the last chunk at the end. */
  public static Consumer<OutputStream> chunked(long total, byte filler) {
    return out -> {
      byte[] block = new byte[64 * 1024];
      java.util.Arrays.fill(block, filler);
      try {
        for (long sent = 0; sent < total; sent += block.length) {
          int size = (int) Math.min(block.length, total - sent);
          out.write((Integer.toHexString(size) + "\r\n").getBytes(StandardCharsets.US_ASCII));
          out.write(block, 0, size);
          out.write("\r\n".getBytes(StandardCharsets.US_ASCII));
        }
        out.write("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        out.flush();
      } catch (IOException e) {
        // the server answered and closed: expected when it refuses the body
      }
    };
  }

  private static boolean startsWith(byte[] bytes, String prefix) {
    byte[] start = prefix.getBytes(StandardCharsets.US_ASCII);
    return bytes.length >= start.length && java.util.Arrays.equals(bytes, 0, start.length, start, 0, start.length);
  }

  private static String readBody(InputStream in, Map<String, List<String>> headers) throws IOException {
    List<String> length = headers.get("content-length");
    List<String> encoding = headers.get("transfer-encoding");
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    if (length != null) {
      body.write(in.readNBytes(Integer.parseInt(length.get(0))));
    } else if (encoding != null && encoding.get(0).equalsIgnoreCase("chunked")) {
      for (int size = Integer.parseInt(readLine(in).trim(), 16); size > 0; size = Integer.parseInt(readLine(in).trim(), 16)) {
        body.write(in.readNBytes(size));
        readLine(in);
      }
      readLine(in);
    } else {
      // neither: the body runs to the end of the connection
      body.write(in.readAllBytes());
    }
    return body.toString(StandardCharsets.UTF_8);
  }

  private static String readLine(InputStream in) throws IOException {
    ByteArrayOutputStream line = new ByteArrayOutputStream();
    for (int b = in.read(); b != -1; b = in.read()) {
      if (b == '\n') {
        byte[] bytes = line.toByteArray();
        int end = bytes.length > 0 && bytes[bytes.length - 1] == '\r' ? bytes.length - 1 : bytes.length;
        return new String(bytes, 0, end, StandardCharsets.ISO_8859_1);
      }
      line.write(b);
    }
    return line.size() == 0 ? null : line.toString(StandardCharsets.ISO_8859_1);
  }
}
