package io.refresher.client;

import io.refresher.embedded.FreePorts;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A TCP proxy in front of a Redis that, once {@linkplain #dropNextAnswer() armed}, lets the next
 * script call ({@code EVAL} or {@code EVALSHA}, on any connection) through and closes its
 * connection when the answer comes, instead of passing it on: the
 * "sent, answer lost" case, where Redis ran a command and its client cannot know. Connections
 * made afterwards pass everything.
 */
public final class AnswerDroppingProxy implements AutoCloseable {

  private final int upstreamPort;
  private final ServerSocket server;
  private final AtomicBoolean dropNext = new AtomicBoolean();
  private final AtomicInteger dropped = new AtomicInteger();
  private final List<Socket> sockets = new CopyOnWriteArrayList<>();
  private final Thread acceptor;

  public AnswerDroppingProxy(int upstreamPort) throws IOException {
    this.upstreamPort = upstreamPort;
    this.server = new ServerSocket();
    server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), FreePorts.next()));
    this.acceptor = new Thread(this::accept, "answer-dropping-proxy");
    acceptor.setDaemon(true);
    acceptor.start();
  }

  public int port() {
    return server.getLocalPort();
  }

  /** The answer to the next script call is not passed on: its connection closes instead. */
  public void dropNextAnswer() {
    dropNext.set(true);
  }

  /** How many answers were dropped. */
  public int dropped() {
    return dropped.get();
  }

  @Override
  public void close() throws IOException {
    server.close();
    for (Socket socket : sockets) {
      socket.close();
    }
  }

  private void accept() {
    while (!server.isClosed()) {
      try {
        Socket client = server.accept();
        Socket upstream = new Socket(InetAddress.getLoopbackAddress(), upstreamPort);
        client.setTcpNoDelay(true);
        upstream.setTcpNoDelay(true);
        sockets.add(client);
        sockets.add(upstream);
        AtomicBoolean dropAnswer = new AtomicBoolean();
        pump(client, upstream, false, dropAnswer);
        pump(upstream, client, true, dropAnswer);
      } catch (IOException closed) {
        return;
      }
    }
  }

  private void pump(Socket from, Socket to, boolean answers, AtomicBoolean dropAnswer) {
    Thread thread =
        new Thread(
            () -> {
              byte[] buffer = new byte[8192];
              try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                int read;
                while ((read = in.read(buffer)) >= 0) {
                  if (!answers && isScriptCall(buffer, read) && dropNext.compareAndSet(true, false)) {
                    dropAnswer.set(true);
                  }
                  if (answers && dropAnswer.compareAndSet(true, false)) {
                    dropped.incrementAndGet();
                    from.close();
                    to.close();
                    return;
                  }
                  out.write(buffer, 0, read);
                  out.flush();
                }
              } catch (IOException closed) {
                // one side went away: the other goes too
              } finally {
                closeQuietly(from);
                closeQuietly(to);
              }
            },
            "answer-dropping-proxy-" + (answers ? "answers" : "requests"));
    thread.setDaemon(true);
    thread.start();
  }

  private static boolean isScriptCall(byte[] buffer, int length) {
    String request = new String(buffer, 0, length, java.nio.charset.StandardCharsets.ISO_8859_1).toUpperCase(java.util.Locale.ROOT);
    return request.contains("EVAL");
  }

  private static void closeQuietly(Socket socket) {
    try {
      socket.close();
    } catch (IOException ignored) {
      // closing anyway
    }
  }
}
