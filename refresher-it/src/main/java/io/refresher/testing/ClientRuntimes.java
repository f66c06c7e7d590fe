package io.refresher.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The runtimes of the Python and Node clients, for the tests that run them: installed by the
 * project's own script when missing (Debian's packages; a failure to install fails the test, it
 * never skips it), and the Node client's packages from the npm registry. Commands run from the
 * repository's root, which is the parent of the module the tests run in.
 */
public final class ClientRuntimes {

  public static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
  public static final Path PYTHON_CLIENT = ROOT.resolve("clients/python");
  public static final Path NODE_CLIENT = ROOT.resolve("clients/node");
  /** Debian's Python, where Debian's python3-redis and python3-pytest are. */
  public static final String PYTHON = "/usr/bin/python3";

  /** What a command printed (stdout and stderr together) and how it ended. */
  public record Run(List<String> command, int exitCode, String output) {
    public Run requireSuccess() {
      if (exitCode != 0) {
        throw new AssertionError(String.join(" ", command) + " exited with " + exitCode + ":\n" + output);
      }
      return this;
    }

    /** The last line of the output, where the acceptance drivers print their JSON. */
    public String lastLine() {
      String[] lines = output.strip().split("\n");
      return lines[lines.length - 1];
    }
  }

  private static boolean pythonReady;
  private static boolean nodeReady;
  private static boolean promtoolReady;
  private static boolean chromiumReady;

  private ClientRuntimes() {}

  /** Debian's Python with redis-py and pytest, installed when missing (checked once per JVM). */
  public static synchronized String python() {
    if (!pythonReady) {
      install("python");
      pythonReady = true;
    }
    return PYTHON;
  }

  /**
   * Node and npm, installed when missing, and the Node client's packages ({@code npm ci}),
   * checked once per JVM.
   */
  public static synchronized String node() {
    if (nodeReady) {
      return "node";
    }
    install("node");
    Path lock = NODE_CLIENT.resolve("node_modules/.package-lock.json");
    try (FileChannel channel = FileChannel.open(ROOT.resolve("clients/.npm-ci.lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        FileLock held = channel.lock()) {
      Path manifest = NODE_CLIENT.resolve("package-lock.json");
      if (!Files.exists(lock) || Files.getLastModifiedTime(lock).compareTo(Files.getLastModifiedTime(manifest)) < 0) {
        run(List.of("npm", "ci", "--no-audit", "--no-fund"), NODE_CLIENT, Map.of(), Duration.ofMinutes(5)).requireSuccess();
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    nodeReady = true;
    return "node";
  }

  /** Prometheus's {@code promtool} (Debian's {@code prometheus} package), installed when missing. */
  public static synchronized String promtool() {
    if (!promtoolReady) {
      install("promtool");
      promtoolReady = true;
    }
    return "promtool";
  }

  /**
   * Debian's Chromium and its WebDriver ({@code chromium}, {@code chromium-driver}), installed when
   * missing; returns the driver's path.
   */
  public static synchronized String chromedriver() {
    if (!chromiumReady) {
      install("chromium");
      chromiumReady = true;
    }
    return run(List.of("bash", "-c", "command -v chromedriver"), ROOT, Map.of(), Duration.ofSeconds(10)).requireSuccess().lastLine().strip();
  }

  private static void install(String runtime) {
    run(List.of("bash", ROOT.resolve("clients/install-runtimes.sh").toString(), runtime), ROOT, Map.of(), Duration.ofMinutes(10))
        .requireSuccess();
  }

  /** Runs {@code command} in {@code directory} with {@code environment} added; killed after {@code timeout}. */
  public static Run run(List<String> command, Path directory, Map<String, String> environment, Duration timeout) {
    try {
      Path output = Files.createTempFile("client-run-", ".log");
      ProcessBuilder builder =
          new ProcessBuilder(command).directory(directory.toFile()).redirectErrorStream(true).redirectOutput(output.toFile());
      builder.environment().putAll(environment);
      Process process = builder.start();
      try {
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
          process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
          throw new AssertionError(String.join(" ", command) + " ran over " + timeout + ":\n" + Files.readString(output));
        }
      } finally {
        if (process.isAlive()) {
          process.destroyForcibly();
        }
      }
      return new Run(command, process.exitValue(), Files.readString(output, StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
