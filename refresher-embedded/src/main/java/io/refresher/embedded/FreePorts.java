package io.refresher.embedded;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;

/** Free loopback ports for servers started in tests, the demo and the benchmark. */
public final class FreePorts {

  private FreePorts() {}

  /** A port that was free a moment ago (the OS hands out ephemeral ports round-robin). */
  public static int next() {
    try (ServerSocket socket = new ServerSocket(0)) {
      socket.setReuseAddress(true);
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException("no free port", e);
    }
  }
}
