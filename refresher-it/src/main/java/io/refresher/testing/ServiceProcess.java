package io.refresher.testing;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * One replica of the service as its own JVM, started from the shaded jar the way a container
 * starts it ({@code java -jar refresher-service.jar server config.yml}), and driven the way the
 * kubelet and the kernel drive a pod: {@code SIGTERM}, {@code SIGKILL}, {@code SIGSTOP} and
 * {@code SIGCONT}. Every process started here is killed when the test JVM exits, even if the test
 * that started it failed or was aborted; a frozen one is thawed first so that the kill lands.
 */
public final class ServiceProcess implements AutoCloseable {

  /**
   * The service's runnable jar, as the service module's package phase writes it; the integration
   * test modules sit beside that module, and their tests run in their own module's directory.
   */
  public static final Path JAR = Path.of("..", "refresher-service", "target", "refresher-service.jar");
  private static final Set<ServiceProcess> RUNNING = ConcurrentHashMap.newKeySet();
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  static {
    Runtime.getRuntime().addShutdownHook(new Thread(ServiceProcess::killAll, "service-process-cleanup"));
  }

  /**
   * The {@code REFRESHER_*} variables of a service on {@code redis} and {@code database}, with the
   * admin token and two free ports (application and admin).
   */
  public static Map<String, String> environment(TestRedis redis, TestDatabase database, String adminToken) {
    Map<String, String> env = new java.util.HashMap<>();
    env.put("REFRESHER_REDIS_URL", redis.url());
    env.put("REFRESHER_DB_URL", database.url());
    env.put("REFRESHER_DB_USER", database.user());
    env.put("REFRESHER_DB_PASSWORD", database.password());
    env.put("REFRESHER_ADMIN_TOKEN", adminToken);
    env.put("REFRESHER_HTTP_PORT", Integer.toString(io.refresher.embedded.FreePorts.next()));
    env.put("REFRESHER_ADMIN_PORT", Integer.toString(io.refresher.embedded.FreePorts.next()));
    return env;
  }

  /**
   * A small heap, the serial collector and C1 only: several replicas and the tests share two cores,
   * and C2's compiler threads cost more than they give back in a test's minutes.
   */
  public static final List<String> TEST_JVM_FLAGS = List.of("-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1");

  /** The JVM's defaults (C2, its collector), as the container image runs the service; a 512 MB heap. */
  public static final List<String> PRODUCTION_JVM_FLAGS = List.of("-Xmx512m");

  private final List<String> jvmFlags;
  private final String name;
  private final Path config;
  private final Map<String, String> environment;
  private final int port;
  private final int adminPort;
  private final Path log;
  private Process process;
  private int starts;

  /**
   * @param name the replica's name (its log file and, in the tests, its PostgreSQL application name)
   * @param config the config.yml it runs with
   * @param environment the REFRESHER_* variables (the ports among them)
   */
  public ServiceProcess(String name, Path config, Map<String, String> environment) {
    this(name, config, environment, TEST_JVM_FLAGS);
  }

  /**
   * @param jvmFlags the JVM's flags: {@link #TEST_JVM_FLAGS} (cheap on a shared test machine), or
   *     {@link #PRODUCTION_JVM_FLAGS} where a test measures a rate the service reaches in production
   */
  public ServiceProcess(String name, Path config, Map<String, String> environment, List<String> jvmFlags) {
    this.jvmFlags = List.copyOf(jvmFlags);
    this.name = name;
    this.config = config;
    this.environment = Map.copyOf(environment);
    this.port = Integer.parseInt(environment.get("REFRESHER_HTTP_PORT"));
    this.adminPort = Integer.parseInt(environment.get("REFRESHER_ADMIN_PORT"));
    try {
      this.log = Files.createTempFile("replica-" + name + "-", ".log");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public String name() {
    return name;
  }

  public int port() {
    return port;
  }

  /** Starts the JVM (again, after a stop: the log is appended to). */
  public synchronized void start() {
    if (process != null && process.isAlive()) {
      throw new IllegalStateException(name + " is already running");
    }
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(jvmFlags);
    command.add("-jar");
    command.add(JAR.toAbsolutePath().toString());
    command.add("server");
    command.add(config.toString());
    ProcessBuilder builder =
        new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
    builder.environment().keySet().removeIf(variable -> variable.startsWith("REFRESHER_"));
    builder.environment().putAll(environment);
    try {
      process = builder.start();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    starts++;
    RUNNING.add(this);
  }

  /** Waits until {@code /health-check?type=ready} answers 200. */
  public void awaitReady(Duration atMost) {
    await(name + " becomes ready")
        .atMost(atMost)
        .pollInterval(Duration.ofMillis(200))
        .ignoreExceptions()
        .until(
            () -> {
              if (!process.isAlive()) {
                throw new AssertionError(name + " exited with " + process.exitValue() + "; its log: " + log);
              }
              return HTTP.send(get(port, "/health-check?type=ready"), HttpResponse.BodyHandlers.discarding())
                      .statusCode()
                  == 200;
            });
  }

  public synchronized boolean isAlive() {
    return process != null && process.isAlive();
  }

  public synchronized long pid() {
    return process.pid();
  }

  /** {@code kill -9}: the JVM gets no chance to give anything back. */
  public synchronized void kill() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor(30, TimeUnit.SECONDS);
  }

  /** {@code kill -STOP}: the JVM freezes, its sockets stay open (a paused VM, a stalled node). */
  public void freeze() {
    signal("STOP");
  }

  /** {@code kill -CONT}: a frozen JVM carries on where it stopped. */
  public void thaw() {
    signal("CONT");
  }

  /**
   * {@code SIGTERM}, as the kubelet sends it, and waits up to {@code grace} for the JVM to exit.
   *
   * @return how long it took to exit
   * @throws AssertionError if it was still running after {@code grace} (it is then killed)
   */
  public Duration terminate(Duration grace) throws InterruptedException {
    long started = System.nanoTime();
    process.destroy();
    if (!process.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS)) {
      process.destroyForcibly();
      throw new AssertionError(name + " did not exit within " + grace + " of SIGTERM; its log: " + log);
    }
    return Duration.ofNanos(System.nanoTime() - started);
  }

  /** The value of a sample on {@code /metrics/prometheus} (the sum over its label sets), 0 if absent. */
  public double metric(String sampleName) {
    return PrometheusScrape.sum(PrometheusScrape.of(adminPort), sampleName, null);
  }

  /** Everything the replica has logged, over all its starts. */
  public String logText() {
    try {
      return Files.readString(log);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public Path logFile() {
    return log;
  }

  public int starts() {
    return starts;
  }

  /** Thaws (a frozen JVM ignores nothing but SIGKILL, yet its children would stay stopped) and kills. */
  @Override
  public synchronized void close() {
    if (process != null && process.isAlive()) {
      signal("CONT");
      process.destroyForcibly();
      try {
        process.waitFor(30, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    RUNNING.remove(this);
  }

  private void signal(String signal) {
    try {
      Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid())).inheritIO().start();
      if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
        throw new IllegalStateException("kill -" + signal + " " + pid() + " failed");
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private static void killAll() {
    for (ServiceProcess replica : RUNNING) {
      replica.close();
    }
  }

  private static HttpRequest get(int port, String path) {
    return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).timeout(Duration.ofSeconds(5)).build();
  }
}
