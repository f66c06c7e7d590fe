package io.refresher.bench.stampede;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * A loopback TCP proxy in front of Redis that counts the commands passing through it, by name:
 * how the phase sees the Redis commands of the service, whose Redisson client it does not build
 * (the readers' clients are counted by {@link CommandCounter}). Only the service's connections go
 * through it, so no reader pays its extra hop.
 */
final class CountingRedisProxy implements AutoCloseable {

  private final ServerSocket server;
  private final int upstreamPort;
  private final Map<String, LongAdder> calls = new ConcurrentHashMap<>();
  private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
  private final Thread acceptor;
  private volatile boolean closed;

  CountingRedisProxy(int upstreamPort) throws IOException {
    this.upstreamPort = upstreamPort;
    this.server = new ServerSocket(0, 200, InetAddress.getLoopbackAddress());
    this.acceptor = new Thread(this::accept, "stampede-redis-proxy");
    acceptor.setDaemon(true);
    acceptor.start();
  }

  int port() {
    return server.getLocalPort();
  }

  /** Commands sent through the proxy so far, by lower-case name. */
  Map<String, Long> snapshot() {
    Map<String, Long> copy = new TreeMap<>();
    calls.forEach((name, count) -> copy.put(name, count.sum()));
    return copy;
  }

  private void accept() {
    while (!closed) {
      Socket client;
      try {
        client = server.accept();
      } catch (IOException e) {
        return; // closed
      }
      try {
        Socket upstream = new Socket(InetAddress.getLoopbackAddress(), upstreamPort);
        client.setTcpNoDelay(true);
        upstream.setTcpNoDelay(true);
        sockets.add(client);
        sockets.add(upstream);
        RespCommandParser parser =
            new RespCommandParser(name -> calls.computeIfAbsent(name, n -> new LongAdder()).increment());
        pump(client, upstream, parser, "up");
        pump(upstream, client, null, "down");
      } catch (IOException e) {
        closeQuietly(client);
      }
    }
  }

  private void pump(Socket from, Socket to, RespCommandParser parser, String direction) {
    Thread thread =
        new Thread(
            () -> {
              byte[] buffer = new byte[64 * 1024];
              try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                int n;
                while ((n = in.read(buffer)) > 0) {
                  if (parser != null) {
                    parser.feed(buffer, n);
                  }
                  out.write(buffer, 0, n);
                  out.flush();
                }
              } catch (IOException | RuntimeException e) {
                // a side closed
              } finally {
                closeQuietly(from);
                closeQuietly(to);
              }
            },
            "stampede-redis-proxy-" + direction);
    thread.setDaemon(true);
    thread.start();
  }

  private void closeQuietly(Socket socket) {
    sockets.remove(socket);
    try {
      socket.close();
    } catch (IOException e) {
      // closing anyway
    }
  }

  @Override
  public void close() throws IOException {
    closed = true;
    server.close();
    for (Socket socket : sockets) {
      closeQuietly(socket);
    }
  }
}
