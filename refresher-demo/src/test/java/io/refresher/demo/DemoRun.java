package io.refresher.demo;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The demo command run as a newcomer runs it ({@code java -jar refresher-demo.jar demo ...}), in its
 * own JVM: whether it finished within the limit, its exit code and what it printed. The process
 * and its children are stopped whatever happens, the test failing included.
 *
 * @param exitCode -1 when it did not finish
 */
record DemoRun(boolean exited, int exitCode, String printed) {

  static DemoRun of(Duration limit, String... arguments) throws IOException, InterruptedException {
    Path jar = Path.of(System.getProperty("demo.jar", "target/refresher-demo.jar"));
    if (!Files.exists(jar)) {
      throw new IllegalStateException(jar + " is missing: the demo jar is built in the package phase");
    }
    Path output = Files.createTempFile("demo", ".out");
    List<String> command = new ArrayList<>(List.of(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx512m", "-jar", jar.toString(), "demo"));
    command.addAll(List.of(arguments));
    Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile()).start();
    boolean exited;
    try {
      exited = process.waitFor(limit.toMillis(), TimeUnit.MILLISECONDS);
    } finally {
      stop(process);
    }
    String printed = Files.readString(output, StandardCharsets.UTF_8);
    Files.deleteIfExists(output);
    return new DemoRun(exited, exited ? process.exitValue() : -1, printed);
  }

  /** SIGTERM (the demo's shutdown hooks stop its servers), then SIGKILL for what is left. */
  private static void stop(Process process) throws InterruptedException {
    if (!process.isAlive()) {
      return;
    }
    List<ProcessHandle> children = process.descendants().toList();
    process.destroy();
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      process.waitFor(10, TimeUnit.SECONDS);
    }
    children.stream().filter(ProcessHandle::isAlive).forEach(ProcessHandle::destroyForcibly);
  }
}
