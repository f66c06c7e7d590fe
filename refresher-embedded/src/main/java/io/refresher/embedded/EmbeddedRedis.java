package io.refresher.embedded;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.embedded.RedisServer;

/**
 * A real Redis server process started from the binary that ships inside the
 * {@code com.github.codemonstur:embedded-redis} artifact, listening on loopback only.
 *
 * <p>By default persistence is off: the tests and the demo want a cache that loses its data on
 * restart, which is exactly the case the service must survive. {@link #startPersistent(Path)}
 * starts a server that writes an RDB snapshot to a directory of the caller's, but only when asked
 * to ({@link #save()}, {@link #restartKeepingData()}): there are no automatic save points.
 *
 * <p>The server is a child process of this JVM, so tests can do to it what happens to Redis in
 * production: {@link #kill()} it (a crash, or the OOM killer), {@link #freeze()} it (a stall) and
 * {@link #thaw()} it, start it again on the same port, empty or from its snapshot. Its pid is the
 * {@code process_id} the server itself reports in {@code INFO server}, checked to be a child of this
 * JVM. A frozen server is thawed and killed when the JVM exits, so a failed test leaves nothing
 * running. Not for Windows: the faults use POSIX signals.
 */
public final class EmbeddedRedis implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(EmbeddedRedis.class);
  private static final Duration TIMEOUT = Duration.ofSeconds(10);
  private static final String SNAPSHOT_FILE = "dump.rdb";
  private static final Pattern PROCESS_ID = Pattern.compile("(?m)^process_id:(\\d+)\\s*$");
  private static final Set<EmbeddedRedis> RUNNING = ConcurrentHashMap.newKeySet();

  static {
    Runtime.getRuntime()
        .addShutdownHook(new Thread(EmbeddedRedis::killFrozenAtExit, "embedded-redis-thaw-and-kill"));
  }

  private final int port;
  private final Path dataDirectory;
  private final RedisServer server;
  /** The running server process; null while none runs. */
  private volatile ProcessHandle process;

  private volatile boolean frozen;

  private EmbeddedRedis(int port, Path dataDirectory) {
    this.port = port;
    this.dataDirectory = dataDirectory;
    try {
      var builder =
          RedisServer.newRedisServer()
              .executableProvider(RedisBinary.provider())
              .bind("127.0.0.1")
              .port(port)
              .setting("save \"\"")
              .setting("appendonly no")
              .setting("maxclients 2000")
              // Drain the server's output, or a long-lived server could block on a full pipe.
              .soutListener(line -> LOG.debug("redis :{} {}", port, line))
              .serrListener(line -> LOG.debug("redis :{} (stderr) {}", port, line));
      if (dataDirectory != null) {
        builder.setting("dir " + quoted(dataDirectory.toAbsolutePath().toString()));
        builder.setting("dbfilename " + SNAPSHOT_FILE);
      }
      server = builder.build();
    } catch (IOException e) {
      throw new UncheckedIOException("could not configure embedded Redis on port " + port, e);
    }
  }

  /** Starts a server without persistence on a free loopback port. */
  public static EmbeddedRedis start() {
    return start(FreePorts.next());
  }

  /** Starts a server without persistence on the given loopback port (a restart on the same port keeps clients' URLs valid). */
  public static EmbeddedRedis start(int port) {
    EmbeddedRedis redis = new EmbeddedRedis(port, null);
    redis.startProcess();
    return redis;
  }

  /**
   * Starts a server on a free loopback port that keeps an RDB snapshot ({@code dump.rdb}) in
   * {@code dataDirectory} (created if missing; the caller owns and deletes it). If the directory
   * already holds a snapshot, the server starts with its data. The snapshot is written only by
   * {@link #save()} and {@link #restartKeepingData()}: like a production Redis whose last
   * snapshot is older than its last writes.
   */
  public static EmbeddedRedis startPersistent(Path dataDirectory) {
    try {
      Files.createDirectories(dataDirectory);
    } catch (IOException e) {
      throw new UncheckedIOException("could not create " + dataDirectory, e);
    }
    EmbeddedRedis redis = new EmbeddedRedis(FreePorts.next(), dataDirectory);
    redis.startProcess();
    return redis;
  }

  /** The server's OS process id; {@link IllegalStateException} while no process runs. */
  public long pid() {
    return requireRunning("pid").pid();
  }

  /** Whether a server process runs (frozen or not). */
  public boolean isRunning() {
    return process != null;
  }

  /** Whether the server process is frozen by {@link #freeze()}. */
  public boolean isFrozen() {
    return frozen;
  }

  /**
   * SIGKILLs the server process (a crash, or the OOM killer: no shutdown, no save; works on a
   * frozen process too), then returns once the process is gone and the port is free. Clients see
   * their connections reset and new connections refused until {@link #startAgain()} or {@link
   * #startAgainEmpty()}.
   */
  public synchronized void kill() {
    ProcessHandle running = requireRunning("kill");
    long started = System.nanoTime();
    // On Linux and macOS ProcessHandle.destroyForcibly() is kill(pid, SIGKILL).
    running.destroyForcibly();
    awaitExit(running);
    stopServer(); // The process is gone: this only tells the library so.
    forgetProcess();
    awaitPortFree();
    LOG.info("embedded Redis :{} pid {} killed in {} ms", port, running.pid(), millisSince(started));
  }

  /**
   * Starts a new server process on the same port after {@link #kill()} or {@link #stop()}: Redis
   * comes back after a crash. Without persistence it is empty; with persistence it loads the last
   * snapshot, as a production Redis does (writes after the last {@link #save()} are lost).
   */
  public synchronized void startAgain() {
    requireStopped("startAgain");
    startProcess();
  }

  /**
   * Starts a new, empty server process on the same port after {@link #kill()} or {@link #stop()};
   * with persistence, deletes the snapshot first: Redis comes back from a crash with no data at all
   * (a new node, a lost volume).
   */
  public synchronized void startAgainEmpty() {
    requireStopped("startAgainEmpty");
    deleteSnapshot();
    startProcess();
  }

  /**
   * SIGSTOPs the server process: a stall (a long fork, swapping, a VM pause, a slow command).
   * Connections stay open and the kernel still accepts new ones, but nothing is read or answered
   * until {@link #thaw()}; commands sent meanwhile run after the thaw. Returns once the process is
   * stopped.
   */
  public synchronized void freeze() {
    ProcessHandle running = requireRunning("freeze");
    if (frozen) {
      return;
    }
    signal(running, "STOP");
    frozen = true;
    awaitStopped(running);
    LOG.info("embedded Redis :{} pid {} frozen", port, running.pid());
  }

  /**
   * SIGCONTs a {@link #freeze() frozen} server process: the stall ends and the server answers the
   * commands queued on its connections. Does nothing if the server is not frozen or not running,
   * so it is safe in a {@code finally}.
   */
  public synchronized void thaw() {
    ProcessHandle running = process;
    if (running == null || !frozen) {
      return;
    }
    signal(running, "CONT");
    frozen = false;
    LOG.info("embedded Redis :{} pid {} thawed", port, running.pid());
  }

  /**
   * Writes the snapshot now ({@code SAVE}): the point a later crash and {@link #startAgain()} goes
   * back to. Only for a server started with {@link #startPersistent(Path)}.
   */
  public synchronized void save() {
    requirePersistent("save");
    requireRunning("save");
    requireNotFrozen("save");
    try (RespConnection connection = RespConnection.open(port, TIMEOUT)) {
      connection.call("SAVE");
    } catch (IOException e) {
      throw new UncheckedIOException("embedded Redis :" + port + " did not SAVE", e);
    }
  }

  /**
   * Closes every client connection ({@code CLIENT KILL TYPE normal}): a network blip, a proxy or
   * load balancer dropping idle connections. The server and its data stay. Returns how many were
   * closed.
   */
  public synchronized long killClientConnections() {
    requireRunning("killClientConnections");
    requireNotFrozen("killClientConnections");
    try (RespConnection connection = RespConnection.open(port, TIMEOUT)) {
      Object killed = connection.call("CLIENT", "KILL", "TYPE", "normal", "SKIPME", "yes");
      return killed instanceof Number number ? number.longValue() : 0;
    } catch (IOException e) {
      throw new UncheckedIOException("embedded Redis :" + port + " did not kill its clients", e);
    }
  }

  /**
   * A planned restart that keeps the data (a rolling upgrade, a node replaced with its volume):
   * {@code SHUTDOWN SAVE}, then a new process on the same port that loads the snapshot. Clients see
   * their connections closed and the same data afterwards. Only for a server started with {@link
   * #startPersistent(Path)}; not while frozen.
   */
  public synchronized void restartKeepingData() {
    requirePersistent("restartKeepingData");
    ProcessHandle running = requireRunning("restartKeepingData");
    requireNotFrozen("restartKeepingData");
    long started = System.nanoTime();
    RespConnection connection;
    try {
      connection = RespConnection.open(port, TIMEOUT);
    } catch (IOException e) {
      throw new UncheckedIOException("could not connect to embedded Redis :" + port, e);
    }
    try (connection) {
      connection.send("SHUTDOWN", "SAVE");
      Object reply = connection.read();
      throw new IllegalStateException("SHUTDOWN SAVE answered " + reply + " instead of exiting");
    } catch (RespConnection.ErrorReply e) {
      throw new IllegalStateException("embedded Redis :" + port + " did not save: " + e.getMessage(), e);
    } catch (IOException expected) {
      // Redis saved, exited and so closed the connection without a reply.
    }
    awaitExit(running);
    stopServer();
    forgetProcess();
    awaitPortFree();
    startProcess();
    LOG.info(
        "embedded Redis :{} restarted with its data in {} ms (pid {} -> {})",
        port, millisSince(started), running.pid(), pid());
  }

  /**
   * Stops the process and starts a new, empty one on the same port: Redis "lost its data". With
   * persistence the snapshot is deleted too.
   */
  public synchronized void restart() {
    stop();
    deleteSnapshot();
    startProcess();
  }

  public int port() {
    return port;
  }

  public String url() {
    return "redis://127.0.0.1:" + port;
  }

  /** The snapshot directory of a server started with {@link #startPersistent(Path)}. */
  public Optional<Path> dataDirectory() {
    return Optional.ofNullable(dataDirectory);
  }

  /**
   * Stops the server process gracefully (SIGTERM, after thawing it if frozen) and waits until it
   * exited; no snapshot is written. Does nothing if no process runs.
   */
  public synchronized void stop() {
    if (process == null) {
      return;
    }
    // A stopped process keeps SIGTERM pending, and the library would wait for it forever.
    thaw();
    stopServer();
    forgetProcess();
  }

  @Override
  public void close() {
    stop();
  }

  private void startProcess() {
    long started = System.nanoTime();
    try {
      RedisBinary.start(
          () -> {
            server.start();
            return null;
          });
    } catch (IOException e) {
      throw new UncheckedIOException("could not start embedded Redis on port " + port, e);
    }
    try {
      process = findProcess();
    } catch (RuntimeException e) {
      stopServer();
      throw e;
    }
    RUNNING.add(this);
    LOG.debug("embedded Redis :{} pid {} started in {} ms", port, process.pid(), millisSince(started));
  }

  /** The process that answers on the port, which must be a child of this JVM. */
  private ProcessHandle findProcess() {
    String info;
    try (RespConnection connection = RespConnection.open(port, TIMEOUT)) {
      info = String.valueOf(connection.call("INFO", "server"));
    } catch (IOException e) {
      throw new UncheckedIOException("embedded Redis :" + port + " did not answer INFO", e);
    }
    Matcher matcher = PROCESS_ID.matcher(info);
    if (!matcher.find()) {
      throw new IllegalStateException("no process_id in INFO server of :" + port);
    }
    long pid = Long.parseLong(matcher.group(1));
    ProcessHandle handle =
        ProcessHandle.of(pid)
            .orElseThrow(() -> new IllegalStateException("process " + pid + " of :" + port + " is gone"));
    long parent = handle.parent().map(ProcessHandle::pid).orElse(-1L);
    if (parent != ProcessHandle.current().pid()) {
      throw new IllegalStateException(
          "the Redis on :" + port + " is process " + pid + ", a child of " + parent + ", not of this JVM");
    }
    return handle;
  }

  private void stopServer() {
    try {
      server.stop();
    } catch (IOException e) {
      throw new UncheckedIOException("could not stop embedded Redis on port " + port, e);
    }
  }

  private void forgetProcess() {
    process = null;
    frozen = false;
    RUNNING.remove(this);
  }

  private void deleteSnapshot() {
    if (dataDirectory != null) {
      try {
        Files.deleteIfExists(dataDirectory.resolve(SNAPSHOT_FILE));
      } catch (IOException e) {
        throw new UncheckedIOException("could not delete the snapshot in " + dataDirectory, e);
      }
    }
  }

  private ProcessHandle requireRunning(String operation) {
    ProcessHandle running = process;
    if (running == null) {
      throw new IllegalStateException(operation + ": no embedded Redis process runs on :" + port);
    }
    return running;
  }

  private void requireStopped(String operation) {
    ProcessHandle running = process;
    if (running != null) {
      throw new IllegalStateException(
          operation + ": embedded Redis :" + port + " still runs as pid " + running.pid() + "; kill() or stop() it first");
    }
  }

  private void requireNotFrozen(String operation) {
    if (frozen) {
      throw new IllegalStateException(operation + ": embedded Redis :" + port + " is frozen; thaw() it first");
    }
  }

  private void requirePersistent(String operation) {
    if (dataDirectory == null) {
      throw new IllegalStateException(
          operation + ": embedded Redis :" + port + " has no persistence; use EmbeddedRedis.startPersistent");
    }
  }

  private static void awaitExit(ProcessHandle target) {
    try {
      target.onExit().get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      throw new IllegalStateException("process " + target.pid() + " did not exit within " + TIMEOUT, e);
    } catch (ExecutionException e) {
      throw new IllegalStateException("could not wait for process " + target.pid(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted waiting for process " + target.pid(), e);
    }
  }

  private void awaitPortFree() {
    long deadline = System.nanoTime() + TIMEOUT.toNanos();
    while (true) {
      try (ServerSocket socket = new ServerSocket()) {
        socket.setReuseAddress(true); // As Redis binds, so connections in TIME_WAIT do not count.
        socket.bind(new InetSocketAddress("127.0.0.1", port));
        return;
      } catch (IOException e) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("port " + port + " still in use " + TIMEOUT + " after Redis exited", e);
        }
      }
      pause();
    }
  }

  /** Waits until the process is in state T (stopped), where /proc tells (Linux). */
  private static void awaitStopped(ProcessHandle target) {
    Path stat = Path.of("/proc", Long.toString(target.pid()), "stat");
    if (!Files.isReadable(stat)) {
      return;
    }
    long deadline = System.nanoTime() + TIMEOUT.toNanos();
    while (true) {
      String line;
      try {
        line = Files.readString(stat);
      } catch (IOException e) {
        throw new UncheckedIOException("could not read " + stat, e);
      }
      // "pid (comm) state ...": comm may contain spaces and parentheses, the last ')' ends it.
      char state = line.charAt(line.lastIndexOf(')') + 2);
      if (state == 'T') {
        return;
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("process " + target.pid() + " still in state " + state + " after SIGSTOP");
      }
      pause();
    }
  }

  /** Sends a signal with the system's {@code kill}: Java can only send SIGTERM and SIGKILL itself. */
  private static void signal(ProcessHandle target, String signal) {
    if (!target.isAlive()) {
      throw new IllegalStateException("process " + target.pid() + " is gone; cannot send SIG" + signal);
    }
    try {
      Process kill =
          new ProcessBuilder("kill", "-" + signal, Long.toString(target.pid())).redirectErrorStream(true).start();
      String output = new String(kill.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
      if (!kill.waitFor(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
        kill.destroyForcibly();
        throw new IllegalStateException("kill -" + signal + " " + target.pid() + " did not finish");
      }
      if (kill.exitValue() != 0) {
        throw new IllegalStateException(
            "kill -" + signal + " " + target.pid() + " failed (" + kill.exitValue() + "): " + output);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("could not run kill -" + signal, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted sending SIG" + signal, e);
    }
  }

  /**
   * Shutdown hook: a frozen server would never act on the library's own SIGTERM (and the library
   * waits for it without a timeout), so thaw and SIGKILL it. Takes no locks.
   */
  private static void killFrozenAtExit() {
    for (EmbeddedRedis redis : RUNNING) {
      ProcessHandle running = redis.process;
      if (running != null && redis.frozen && running.isAlive()) {
        try {
          signal(running, "CONT");
        } catch (RuntimeException e) {
          // SIGKILL ends a stopped process as well.
        }
        running.destroyForcibly();
      }
    }
  }

  private static void pause() {
    try {
      Thread.sleep(10);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  private static long millisSince(long nanoTime) {
    return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - nanoTime);
  }

  private static String quoted(String value) {
    return "\"" + value.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
  }
}
