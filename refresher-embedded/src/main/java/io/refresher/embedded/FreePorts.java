package io.refresher.embedded;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Free loopback ports for servers started in tests, the demo and the benchmark, reserved for the
 * life of the JVM that asked, across every JVM on the machine that asks here.
 *
 * <p>A port that is merely free a moment ago is not enough once several test JVMs, demo runs and
 * service processes start servers side by side: the OS hands the same ephemeral port to the next
 * {@code bind(0)} in another JVM, or to an outgoing connection, before the server binds it, and a
 * test then talks to another test's service (seen once: a 401 from a replica of another fork). So
 * ports come from 10000-19999, below the ephemeral range (Linux 32768-60999, macOS 49152-65535),
 * whose {@code +10000} (a Redis Cluster node's bus port) is never handed out either; each port
 * handed out holds an exclusive lock on {@code <tmp>/refresher-ports/<port>.lock} until the JVM
 * ends (the OS drops the lock when the process dies, however it dies), and a JVM never hands out
 * a port twice. A process the JVM starts (a service replica) uses the port under its parent's lock.
 */
public final class FreePorts {

  private static final int FIRST = 10_000;
  private static final int LAST = 19_999;
  private static final Path LOCKS = Path.of(System.getProperty("java.io.tmpdir"), "refresher-ports");

  /** Held until the JVM exits: the reservation is the lock. */
  private static final List<FileLock> HELD = new ArrayList<>();

  private static int cursor = FIRST + ThreadLocalRandom.current().nextInt(LAST - FIRST + 1);

  private FreePorts() {}

  /** A port no other JVM asking here holds, free when asked, never handed out twice by this JVM. */
  public static synchronized int next() {
    try {
      Files.createDirectories(LOCKS);
    } catch (IOException e) {
      throw new UncheckedIOException("no directory for port reservations: " + LOCKS, e);
    }
    for (int tried = 0; tried <= LAST - FIRST; tried++) {
      int port = cursor;
      cursor = cursor == LAST ? FIRST : cursor + 1;
      FileLock lock = tryReserve(port);
      if (lock == null) {
        continue;
      }
      if (bindable(port)) {
        HELD.add(lock);
        return port;
      }
      release(lock);
    }
    throw new IllegalStateException("no free port in " + FIRST + "-" + LAST + " (reservations in " + LOCKS + ")");
  }

  private static FileLock tryReserve(int port) {
    FileChannel channel = null;
    try {
      channel = FileChannel.open(LOCKS.resolve(port + ".lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
      FileLock lock = channel.tryLock();
      if (lock == null) {
        channel.close();
      }
      return lock;
    } catch (OverlappingFileLockException e) {
      // This JVM holds it already.
      closeQuietly(channel);
      return null;
    } catch (IOException e) {
      closeQuietly(channel);
      return null;
    }
  }

  private static boolean bindable(int port) {
    try (ServerSocket socket = new ServerSocket()) {
      socket.setReuseAddress(true);
      socket.bind(new InetSocketAddress(port));
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  private static void release(FileLock lock) {
    try {
      lock.release();
    } catch (IOException ignored) {
      // The channel's close below drops it as well.
    }
    closeQuietly(lock.channel());
  }

  private static void closeQuietly(FileChannel channel) {
    if (channel == null) {
      return;
    }
    try {
      channel.close();
    } catch (IOException ignored) {
      // Nothing held.
    }
  }
}
