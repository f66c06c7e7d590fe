package io.refresher.testing;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * A tiny HTTP/1.1 server on the loopback address that records every request exactly as it came
 * off the wire: the request line byte for byte (a server library decodes or normalises the path
 * before a test can see it), the headers, the body, when it arrived, and how many requests were in
 * flight at once. One request per connection ({@code Connection: close}); each is answered by the
 * test's handler, optionally after a delay, or with a body that never ends (to show that a client
 * stops reading).
 */
public final class RecordingHttpServer implements AutoCloseable {

  /** A request as received; header names in lower case. */
  public record Request(String requestLine, String method, String target, Map<String, String> headers, byte[] body, long receivedAtMillis) {

    public String header(String name) {
      return headers.get(name.toLowerCase(Locale.ROOT));
    }

    public String bodyText() {
      return new String(body, StandardCharsets.UTF_8);
    }
  }

  /**
   * An answer. {@code endless}: a chunked body that goes on until the client closes the connection
   * ({@code body} is then the content of each chunk).
   */
  public record Reply(int status, Map<String, String> headers, byte[] body, Duration delay, boolean endless) {

    public static Reply ok(String body) {
      return new Reply(200, Map.of("Content-Type", "text/plain; charset=utf-8"), body.getBytes(StandardCharsets.UTF_8), Duration.ZERO, false);
    }

    public static Reply status(int status, String body) {
      return new Reply(status, Map.of(), body.getBytes(StandardCharsets.UTF_8), Duration.ZERO, false);
    }

    public static Reply endless(String chunk) {
      return new Reply(200, Map.of(), chunk.getBytes(StandardCharsets.UTF_8), Duration.ZERO, true);
    }

    public Reply after(Duration wait) {
      return new Reply(status, headers, body, wait, endless);
    }
  }

  private final ServerSocket server;
  private final ExecutorService threads = Executors.newCachedThreadPool(runnable -> {
    Thread thread = new Thread(runnable, "recording-http-server");
    thread.setDaemon(true);
    return thread;
  });
  private final List<Request> requests = new CopyOnWriteArrayList<>();
  private final AtomicInteger inFlight = new AtomicInteger();
  private final AtomicInteger mostInFlight = new AtomicInteger();
  private final AtomicInteger endlessBytesSent = new AtomicInteger();
  private volatile Function<Request, Reply> handler;

  private RecordingHttpServer(Function<Request, Reply> handler) throws IOException {
    this.handler = handler;
    this.server = new ServerSocket();
    server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
    threads.execute(this::acceptLoop);
  }

  /** Starts on a free loopback port. */
  public static RecordingHttpServer start(Function<Request, Reply> handler) {
    try {
      return new RecordingHttpServer(handler);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  public int port() {
    return server.getLocalPort();
  }

  public String baseUrl() {
    return "http://127.0.0.1:" + port();
  }

  public void handler(Function<Request, Reply> handler) {
    this.handler = handler;
  }

  public List<Request> requests() {
    return List.copyOf(requests);
  }

  /** The requests whose target starts with {@code prefix}. */
  public List<Request> requestsTo(String prefix) {
    List<Request> matching = new ArrayList<>();
    for (Request request : requests) {
      if (request.target().startsWith(prefix)) {
        matching.add(request);
      }
    }
    return matching;
  }

  /** The most requests that were being answered at one moment. */
  public int mostInFlight() {
    return mostInFlight.get();
  }

  /** Bytes of endless bodies written so far (until the clients hung up). */
  public int endlessBytesSent() {
    return endlessBytesSent.get();
  }

  private void acceptLoop() {
    while (!server.isClosed()) {
      try {
        Socket socket = server.accept();
        threads.execute(() -> serve(socket));
      } catch (IOException e) {
        return; // closed
      }
    }
  }

  private void serve(Socket socket) {
    try (socket) {
      socket.setSoTimeout(30_000);
      InputStream in = socket.getInputStream();
      byte[] head = readHead(in);
      if (head == null) {
        return;
      }
      String text = new String(head, StandardCharsets.ISO_8859_1);
      String[] lines = text.split("\r\n");
      Map<String, String> headers = new LinkedHashMap<>();
      for (int i = 1; i < lines.length; i++) {
        int colon = lines[i].indexOf(':');
        if (colon > 0) {
          headers.put(lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT), lines[i].substring(colon + 1).trim());
        }
      }
      int length = headers.containsKey("content-length") ? Integer.parseInt(headers.get("content-length")) : 0;
      byte[] body = in.readNBytes(length);
      String[] parts = lines[0].split(" ", 3);
      Request request =
          new Request(lines[0], parts[0], parts.length > 1 ? parts[1] : "", headers, body, System.currentTimeMillis());
      mostInFlight.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
      try {
        requests.add(request);
        Reply reply = handler.apply(request);
        if (!reply.delay().isZero()) {
          Thread.sleep(reply.delay().toMillis());
        }
        write(socket.getOutputStream(), reply);
      } finally {
        inFlight.decrementAndGet();
      }
    } catch (SocketException e) {
      // the client hung up
    } catch (IOException e) {
      // the client hung up, or sent nonsense
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static byte[] readHead(InputStream in) throws IOException {
    ByteArrayOutputStream head = new ByteArrayOutputStream();
    int matched = 0;
    int b;
    while ((b = in.read()) >= 0) {
      head.write(b);
      matched = (b == '\r' && (matched == 0 || matched == 2)) || (b == '\n' && (matched == 1 || matched == 3)) ? matched + 1 : 0;
      if (matched == 4) {
        byte[] bytes = head.toByteArray();
        return java.util.Arrays.copyOf(bytes, bytes.length - 4);
      }
      if (head.size() > 64 * 1024) {
        return null;
      }
    }
    return null;
  }

  private void write(OutputStream out, Reply reply) throws IOException {
    StringBuilder head = new StringBuilder("HTTP/1.1 ").append(reply.status()).append(" Status\r\n");
    reply.headers().forEach((name, value) -> head.append(name).append(": ").append(value).append("\r\n"));
    head.append("Connection: close\r\n");
    if (reply.endless()) {
      head.append("Transfer-Encoding: chunked\r\n\r\n");
      out.write(head.toString().getBytes(StandardCharsets.ISO_8859_1));
      byte[] chunk = (Integer.toHexString(reply.body().length) + "\r\n").getBytes(StandardCharsets.ISO_8859_1);
      // bounded: 1 GiB at most, should a client never hang up
      for (long sent = 0; sent < (1L << 30); sent += reply.body().length) {
        out.write(chunk);
        out.write(reply.body());
        out.write("\r\n".getBytes(StandardCharsets.ISO_8859_1));
        endlessBytesSent.addAndGet(reply.body().length);
      }
      return;
    }
    head.append("Content-Length: ").append(reply.body().length).append("\r\n\r\n");
    out.write(head.toString().getBytes(StandardCharsets.ISO_8859_1));
    out.write(reply.body());
    out.flush();
  }

  @Override
  public void close() {
    try {
      server.close();
    } catch (IOException e) {
      // closing anyway
    }
    threads.shutdownNow();
  }
}
