package io.refresher.embedded;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A primary, its replicas and three Sentinels ({@code redis-server --sentinel}), real processes
 * started from the binary inside the {@code com.github.codemonstur:embedded-redis} artifact, on
 * free loopback ports, without persistence: a Redis behind Sentinel as many deployments run it.
 *
 * <p>The Sentinels monitor the primary as {@link #MASTER_NAME} with a quorum of 2, mark it down
 * after {@code downAfter} without an answer and fail over to a replica. {@link #start} returns
 * once every replica replicates and every Sentinel knows all the replicas and the other two
 * Sentinels, so a failover can be authorised at once.
 *
 * <p>The processes are children of this JVM (started here, not by the library, so their pids are
 * known): {@link #kill(int)} SIGKILLs one, {@link #freeze(int)} SIGSTOPs one and {@link
 * #thaw(int)} resumes it. {@link #close()} kills them all and deletes their configuration
 * directory; a shutdown hook does the same for a group a failed test left open. Not for Windows.
 */
public final class EmbeddedRedisSentinelGroup implements AutoCloseable {

  public static final String MASTER_NAME = "refresher";

  private static final Logger LOG = LoggerFactory.getLogger(EmbeddedRedisSentinelGroup.class);
  private static final Duration TIMEOUT = Duration.ofSeconds(10);
  private static final int SENTINELS = 3;
  private static final Set<EmbeddedRedisSentinelGroup> OPEN = ConcurrentHashMap.newKeySet();

  static {
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(() -> OPEN.forEach(EmbeddedRedisSentinelGroup::killAll), "embedded-sentinel-group-kill"));
  }

  private final Path directory;
  private final Duration downAfter;
  /** Servers (primary first, then replicas) and Sentinels by port; a killed one is removed. */
  private final Map<Integer, Process> servers = new ConcurrentHashMap<>();
  private final Map<Integer, Process> sentinels = new ConcurrentHashMap<>();
  private final Set<Integer> frozen = ConcurrentHashMap.newKeySet();
  private final List<Integer> serverPorts = new ArrayList<>();
  private final List<Integer> sentinelPorts = new ArrayList<>();

  private EmbeddedRedisSentinelGroup(Path directory, Duration downAfter) {
    this.directory = directory;
    this.downAfter = downAfter;
  }

  /**
   * Starts a primary, {@code replicas} replicas and three Sentinels.
   *
   * @param downAfter the Sentinels' {@code down-after-milliseconds}: how long the primary may not
   *     answer before it is taken as down and a failover starts
   */
  public static EmbeddedRedisSentinelGroup start(int replicas, Duration downAfter) {
    if (replicas < 1) {
      throw new IllegalArgumentException("a failover needs at least one replica");
    }
    Path directory;
    try {
      directory = Files.createTempDirectory("embedded-sentinel-group");
    } catch (IOException e) {
      throw new UncheckedIOException("could not create a directory for the Sentinel group", e);
    }
    EmbeddedRedisSentinelGroup group = new EmbeddedRedisSentinelGroup(directory, downAfter);
    OPEN.add(group);
    try {
      group.startAll(replicas);
      return group;
    } catch (RuntimeException e) {
      group.close();
      throw e;
    }
  }

  private void startAll(int replicas) {
    long started = System.nanoTime();
    int primary = FreePorts.next();
    serverPorts.add(primary);
    startServer(primary, List.of());
    for (int i = 0; i < replicas; i++) {
      int port = FreePorts.next();
      serverPorts.add(port);
      startServer(port, List.of("replicaof 127.0.0.1 " + primary));
    }
    for (int port : serverPorts.subList(1, serverPorts.size())) {
      await("replica :" + port + " in sync", () -> info(port, "replication").contains("master_link_status:up"));
    }
    for (int i = 0; i < SENTINELS; i++) {
      int port = FreePorts.next();
      sentinelPorts.add(port);
      startSentinel(port, primary);
    }
    for (int port : sentinelPorts) {
      await(
          "Sentinel :" + port + " knowing every replica and Sentinel",
          () ->
              count(port, "SENTINEL", "REPLICAS", MASTER_NAME) == replicas
                  && count(port, "SENTINEL", "SENTINELS", MASTER_NAME) == SENTINELS - 1);
    }
    LOG.info(
        "embedded Sentinel group started in {} ms: servers {}, Sentinels {}",
        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started), serverPorts, sentinelPorts);
  }

  /** The Sentinels' addresses, {@code 127.0.0.1:port}. */
  public List<String> sentinelAddresses() {
    return sentinelPorts.stream().map(port -> "127.0.0.1:" + port).toList();
  }

  public List<Integer> sentinelPorts() {
    return List.copyOf(sentinelPorts);
  }

  /** The ports of all data servers started, primary first (also those killed since). */
  public List<Integer> serverPorts() {
    return List.copyOf(serverPorts);
  }

  /** The port of the server the Sentinels name as primary now. */
  public int primaryPort() {
    IOException last = null;
    for (int sentinel : sentinelPorts) {
      if (!sentinels.containsKey(sentinel) || frozen.contains(sentinel)) {
        continue;
      }
      try (RespConnection connection = RespConnection.open(sentinel, TIMEOUT)) {
        Object reply = connection.call("SENTINEL", "GET-MASTER-ADDR-BY-NAME", MASTER_NAME);
        if (reply instanceof List<?> address && address.size() == 2) {
          return Integer.parseInt(String.valueOf(address.get(1)));
        }
      } catch (IOException e) {
        last = e;
      }
    }
    throw new IllegalStateException("no Sentinel names a primary", last);
  }

  /** The running replicas of the current primary (not frozen ones' state: they are asked nothing). */
  public List<Integer> replicaPorts() {
    int primary = primaryPort();
    return servers.keySet().stream().filter(port -> port != primary).sorted().toList();
  }

  /** Waits until the Sentinels name a primary other than {@code oldPrimary} and it answers as one; returns its port. */
  public int awaitFailover(int oldPrimary, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      try {
        int primary = primaryPort();
        if (primary != oldPrimary && info(primary, "replication").contains("role:master")) {
          return primary;
        }
      } catch (RuntimeException e) {
        // a Sentinel or the new primary is between states: ask again
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("no failover away from :" + oldPrimary + " within " + timeout);
      }
      pause();
    }
  }

  /**
   * Closes the primary's connections to its replicas ({@code CLIENT KILL TYPE replica}). With the
   * replicas {@link #freeze(int) frozen} first, writes made after this reach no replica: kill the
   * primary then, thaw them, and the replica the Sentinels promote has missed those writes, as an
   * asynchronous replica does when its primary dies.
   */
  public void cutReplicationLinks(int primary) {
    call(primary, "CLIENT", "KILL", "TYPE", "replica");
  }

  /** One command to a server or Sentinel of the group. */
  public Object call(int port, String... command) {
    try (RespConnection connection = RespConnection.open(port, TIMEOUT)) {
      return connection.call(command);
    } catch (IOException e) {
      throw new UncheckedIOException("embedded Redis :" + port + " did not answer " + command[0], e);
    }
  }

  /** {@code INFO section} of a server. */
  public String info(int port, String section) {
    return String.valueOf(call(port, "INFO", section));
  }

  /** SIGKILLs a server or Sentinel (a crash) and waits until it is gone. */
  public synchronized void kill(int port) {
    Process process = processOf(port);
    process.destroyForcibly();
    try {
      if (!process.waitFor(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
        throw new IllegalStateException("process of :" + port + " did not exit");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted killing :" + port, e);
    }
    servers.remove(port);
    sentinels.remove(port);
    frozen.remove(port);
    LOG.info("embedded Redis :{} pid {} killed", port, process.pid());
  }

  /** SIGSTOPs a server or Sentinel: it answers nothing until {@link #thaw(int)}. */
  public synchronized void freeze(int port) {
    signal(processOf(port), "STOP");
    frozen.add(port);
  }

  /** SIGCONTs a frozen server or Sentinel; does nothing if it is not frozen. */
  public synchronized void thaw(int port) {
    if (frozen.remove(port)) {
      signal(processOf(port), "CONT");
    }
  }

  /** The pid of a running server or Sentinel. */
  public long pid(int port) {
    return processOf(port).pid();
  }

  @Override
  public void close() {
    killAll();
    OPEN.remove(this);
    try (Stream<Path> files = Files.walk(directory)) {
      for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(file);
      }
    } catch (IOException e) {
      LOG.warn("could not delete {}: {}", directory, e.getMessage());
    }
  }

  /** SIGKILLs every process (a stopped one too); takes no lock, so the shutdown hook may run it. */
  private void killAll() {
    for (Process process : Stream.concat(sentinels.values().stream(), servers.values().stream()).toList()) {
      process.destroyForcibly();
    }
    for (Process process : Stream.concat(sentinels.values().stream(), servers.values().stream()).toList()) {
      try {
        process.waitFor(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
    sentinels.clear();
    servers.clear();
    frozen.clear();
  }

  private void startServer(int port, List<String> extra) {
    List<String> lines = new ArrayList<>();
    lines.add("port " + port);
    lines.add("bind 127.0.0.1");
    lines.add("save \"\"");
    lines.add("appendonly no");
    lines.add("maxclients 2000");
    lines.add("dir " + directory.toAbsolutePath());
    lines.add("dbfilename dump-" + port + ".rdb");
    lines.addAll(extra);
    servers.put(port, launch(port, "redis-" + port + ".conf", lines, false));
    await("Redis :" + port + " answering", () -> "PONG".equals(tryCall(port, "PING")));
  }

  private void startSentinel(int port, int primary) {
    long downAfterMillis = downAfter.toMillis();
    List<String> lines =
        List.of(
            "port " + port,
            "bind 127.0.0.1",
            "dir " + directory.toAbsolutePath(),
            "sentinel monitor " + MASTER_NAME + " 127.0.0.1 " + primary + " 2",
            "sentinel down-after-milliseconds " + MASTER_NAME + " " + downAfterMillis,
            // A failover that stalls is retried after twice this; small, so a test never waits long.
            "sentinel failover-timeout " + MASTER_NAME + " " + Math.max(2_000, 3 * downAfterMillis),
            "sentinel parallel-syncs " + MASTER_NAME + " 1");
    sentinels.put(port, launch(port, "sentinel-" + port + ".conf", lines, true));
    await("Sentinel :" + port + " answering", () -> "PONG".equals(tryCall(port, "PING")));
  }

  private Process launch(int port, String configName, List<String> lines, boolean sentinel) {
    try {
      Path config = directory.resolve(configName);
      Files.write(config, lines, StandardCharsets.UTF_8); // Sentinel rewrites its file: it must be writable.
      String binary = RedisBinary.file().getAbsolutePath();
      List<String> command = new ArrayList<>(List.of(binary, config.toString()));
      if (sentinel) {
        command.add("--sentinel");
      }
      ProcessBuilder builder =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(directory.resolve(configName + ".log").toFile());
      Process process = RedisBinary.start(builder::start);
      LOG.debug("embedded {} :{} pid {}", sentinel ? "Sentinel" : "Redis", port, process.pid());
      return process;
    } catch (IOException e) {
      throw new UncheckedIOException("could not start embedded Redis on :" + port, e);
    }
  }

  private Process processOf(int port) {
    Process process = servers.containsKey(port) ? servers.get(port) : sentinels.get(port);
    if (process == null) {
      throw new IllegalStateException("no process of the group runs on :" + port);
    }
    return process;
  }

  private Object tryCall(int port, String... command) {
    try (RespConnection connection = RespConnection.open(port, Duration.ofMillis(500))) {
      return connection.call(command);
    } catch (IOException e) {
      return null;
    }
  }

  private int count(int port, String... command) {
    return tryCall(port, command) instanceof List<?> list ? list.size() : -1;
  }

  private static void await(String what, BooleanSupplier condition) {
    long deadline = System.nanoTime() + 3 * TIMEOUT.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("timed out waiting for " + what);
      }
      pause();
    }
  }

  private static void signal(Process process, String signal) {
    try {
      Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid())).start();
      if (!kill.waitFor(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS) || kill.exitValue() != 0) {
        throw new IllegalStateException("kill -" + signal + " " + process.pid() + " failed");
      }
    } catch (IOException e) {
      throw new UncheckedIOException("could not run kill -" + signal, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted sending SIG" + signal, e);
    }
  }

  private static void pause() {
    try {
      Thread.sleep(20);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  @Override
  public String toString() {
    return "EmbeddedRedisSentinelGroup{servers=" + serverPorts + ", sentinels="
        + sentinelPorts.stream().map(String::valueOf).collect(Collectors.joining(",")) + "}";
  }
}
