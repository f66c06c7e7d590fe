package io.refresher.embedded;

import java.io.IOException;
import java.io.UncheckedIOException;
import redis.embedded.RedisServer;

/**
 * A real Redis server process started from the binary that ships inside the
 * {@code com.github.codemonstur:embedded-redis} artifact, listening on loopback only.
 *
 * <p>Persistence is off: the tests and the demo want a cache that loses its data on restart, which
 * is exactly the case the service must survive.
 */
public final class EmbeddedRedis implements AutoCloseable {

  private final int port;
  private RedisServer server;

  private EmbeddedRedis(int port) {
    this.port = port;
  }

  /** Starts a server on a free loopback port. */
  public static EmbeddedRedis start() {
    return start(FreePorts.next());
  }

  /** Starts a server on the given loopback port (a restart on the same port keeps clients' URLs valid). */
  public static EmbeddedRedis start(int port) {
    EmbeddedRedis redis = new EmbeddedRedis(port);
    redis.startProcess();
    return redis;
  }

  private void startProcess() {
    try {
      server =
          RedisServer.newRedisServer()
              .bind("127.0.0.1")
              .port(port)
              .setting("save \"\"")
              .setting("appendonly no")
              .setting("maxclients 2000")
              .build();
      server.start();
    } catch (IOException e) {
      throw new UncheckedIOException("could not start embedded Redis on port " + port, e);
    }
  }

  /** Stops the process and starts a new, empty one on the same port: Redis "lost its data". */
  public void restart() {
    stop();
    startProcess();
  }

  public int port() {
    return port;
  }

  public String url() {
    return "redis://127.0.0.1:" + port;
  }

  public void stop() {
    if (server != null) {
      try {
        server.stop();
      } catch (IOException e) {
        throw new UncheckedIOException("could not stop embedded Redis on port " + port, e);
      }
      server = null;
    }
  }

  @Override
  public void close() {
    stop();
  }

}
