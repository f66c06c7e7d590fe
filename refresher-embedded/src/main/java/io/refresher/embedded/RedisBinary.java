package io.refresher.embedded;

import java.io.File;
import java.io.IOException;
import redis.embedded.core.ExecutableProvider;

/**
 * The {@code redis-server} binary of the embedded-redis artifact, written to disk once per JVM, and
 * the way to execute it.
 *
 * <p>Why once: Linux refuses to execute a file that a process holds open for writing ({@code
 * ETXTBSY}, "Text file busy"), and a child that another thread of the JVM forks while the binary is
 * being written inherits the write descriptor until it execs. The library writes a fresh copy for
 * every server it builds, so with servers, PostgreSQL and test processes started side by side, any
 * start could fail (one did, in a CI run). Written once, the window opens once per JVM; {@link
 * #start} closes it by retrying the exec for as long as such a child can live. Every server the
 * tests build from the artifact (TLS ones included) goes through here.
 */
public final class RedisBinary {

  /** A forked child holds the descriptor only until its own exec, which takes milliseconds. */
  private static final int ATTEMPTS = 20;

  private static final long PAUSE_MILLIS = 50;

  private static File binary;

  private RedisBinary() {}

  /** The binary, extracted from the artifact on first use. */
  public static synchronized File file() throws IOException {
    if (binary == null) {
      binary = ExecutableProvider.newJarResourceProvider().get();
    }
    return binary;
  }

  /** The provider that hands the library the one extracted binary. */
  public static ExecutableProvider provider() {
    return RedisBinary::file;
  }

  /** Something that executes the binary. */
  @FunctionalInterface
  public interface Start<T> {
    T run() throws IOException;
  }

  /** Runs {@code start}, again while it fails only because the binary is briefly busy. */
  public static <T> T start(Start<T> start) throws IOException {
    for (int attempt = 1; ; attempt++) {
      try {
        return start.run();
      } catch (IOException e) {
        if (attempt == ATTEMPTS || !textFileBusy(e)) {
          throw e;
        }
      }
      try {
        Thread.sleep(PAUSE_MILLIS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("interrupted while the Redis binary was busy", e);
      }
    }
  }

  private static boolean textFileBusy(Throwable failure) {
    for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
      String message = cause.getMessage();
      if (message != null && message.contains("error=26")) {
        return true;
      }
    }
    return false;
  }
}
