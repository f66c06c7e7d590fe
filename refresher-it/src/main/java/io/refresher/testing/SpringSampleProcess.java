package io.refresher.testing;

import static org.awaitility.Awaitility.await;

import io.refresher.embedded.FreePorts;
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
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The Spring Boot starter's sample application (a product catalog behind {@code @Cacheable}) as a
 * JVM of its own, on the classpath the starter module's build wrote. Killed when closed, and when
 * the test JVM exits even if the test failed.
 */
public final class SpringSampleProcess implements AutoCloseable {

  private static final Path STARTER = Path.of("..", "refresher-spring-boot-starter", "target");
  private static final Set<Process> RUNNING = ConcurrentHashMap.newKeySet();
  private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  static {
    Runtime.getRuntime().addShutdownHook(new Thread(() -> RUNNING.forEach(Process::destroyForcibly), "spring-sample-cleanup"));
  }

  private final String name;
  private final int port;
  private final Path log;
  private final Process process;

  private SpringSampleProcess(String name, int port, Path log, Process process) {
    this.name = name;
    this.port = port;
    this.log = log;
    this.process = process;
  }

  /**
   * Starts the sample on the Redis at {@code redisUrl} with {@code clientType} ({@code lettuce}
   * or {@code jedis}) and the given extra {@code --name=value} arguments; returns once it answers.
   */
  public static SpringSampleProcess start(String name, String redisUrl, String clientType, String... arguments) {
    int port = FreePorts.next();
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-Xmx192m");
    command.add("-XX:+UseSerialGC");
    command.add("-XX:TieredStopAtLevel=1");
    command.add("-cp");
    command.add(classpath());
    command.add("io.refresher.spring.sample.SampleApplication");
    command.add("--server.port=" + port);
    command.add("--spring.data.redis.url=" + redisUrl);
    command.add("--spring.data.redis.client-type=" + clientType);
    command.addAll(List.of(arguments));
    try {
      Path log = Files.createTempFile("spring-sample-" + name + "-", ".log");
      Process process =
          new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
      RUNNING.add(process);
      SpringSampleProcess sample = new SpringSampleProcess(name, port, log, process);
      sample.awaitReady(Duration.ofSeconds(60));
      return sample;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String classpath() {
    Path written = STARTER.resolve("sample-classpath.txt");
    try {
      return String.join(
          java.io.File.pathSeparator,
          STARTER.resolve("test-classes").toAbsolutePath().toString(),
          STARTER.resolve("classes").toAbsolutePath().toString(),
          Files.readString(written).trim());
    } catch (IOException e) {
      throw new UncheckedIOException("the starter's build writes " + written.toAbsolutePath() + "; build it first", e);
    }
  }

  private void awaitReady(Duration atMost) {
    await(name + " answers")
        .atMost(atMost)
        .pollInterval(Duration.ofMillis(200))
        .ignoreExceptions()
        .until(
            () -> {
              if (!process.isAlive()) {
                throw new AssertionError(name + " exited with " + process.exitValue() + "; its log: " + Files.readString(log));
              }
              return HTTP.send(request("/actuator/health").GET().build(), HttpResponse.BodyHandlers.discarding()).statusCode() == 200;
            });
  }

  /** GET {@code path}: the body, or an error naming the status. */
  public String get(String path) {
    return send(request(path).GET().build());
  }

  /** POST {@code path} with no body: the body, or an error naming the status. */
  public String post(String path) {
    return send(request(path).POST(HttpRequest.BodyPublishers.noBody()).timeout(Duration.ofMinutes(2)).build());
  }

  public Path log() {
    return log;
  }

  private HttpRequest.Builder request(String path) {
    return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).timeout(Duration.ofSeconds(30));
  }

  private String send(HttpRequest request) {
    try {
      HttpResponse<String> response = HTTP.send(request, HttpResponse.BodyHandlers.ofString());
      if (response.statusCode() != 200) {
        throw new AssertionError(name + ": " + request.uri() + " answered " + response.statusCode() + ": " + response.body());
      }
      return response.body();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  @Override
  public void close() {
    process.destroy();
    try {
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    } finally {
      RUNNING.remove(process);
    }
  }
}
