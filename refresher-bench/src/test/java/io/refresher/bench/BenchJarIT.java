package io.refresher.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The built jar, as a reader of the README runs it, refuses options it does not understand before
 * it starts any server: status 2, the usage and the error on stderr, no results directory.
 */
class BenchJarIT {

  /** The jar the bench module's package phase writes; refresher-it-default runs this test beside it. */
  private static final Path JAR = Path.of("..", "refresher-bench", "target", "refresher-bench.jar");

  @TempDir Path out;

  @Test
  void aMistypedOption_exitsWithTheUsage() throws Exception {
    Result result = run("--quik", "--out", out.toString());
    assertThat(result.status()).isEqualTo(2);
    assertThat(result.stderr()).contains("usage: refresher-bench").contains("--quik");
    assertThat(out).isEmptyDirectory();
  }

  @Test
  void anUnknownPhase_exitsWithTheUsage() throws Exception {
    Result result = run("--phases", "foo", "--out", out.toString());
    assertThat(result.status()).isEqualTo(2);
    assertThat(result.stderr()).contains("usage: refresher-bench").contains("'foo'", "ceiling, throughput");
    assertThat(out).isEmptyDirectory();
  }

  @Test
  void help_listsTheOptions_andExitsZero() throws Exception {
    Result result = run("--help");
    assertThat(result.status()).isZero();
    assertThat(result.stdout()).contains("--quick", "--tiny", "--label", "--out", "--phases", "ceiling");
  }

  private record Result(int status, String stdout, String stderr) {}

  private Result run(String... args) throws Exception {
    assertThat(JAR).as("the jar the package phase builds").isRegularFile();
    Path stdout = Files.createTempFile("bench-out", ".txt");
    Path stderr = Files.createTempFile("bench-err", ".txt");
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<String> command = new java.util.ArrayList<>(List.of(java, "-jar", JAR.toString()));
    command.addAll(List.of(args));
    Process process = new ProcessBuilder(command).redirectOutput(stdout.toFile()).redirectError(stderr.toFile()).start();
    try {
      assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("the jar ended within 60 s").isTrue();
      return new Result(process.exitValue(), Files.readString(stdout, StandardCharsets.UTF_8), Files.readString(stderr, StandardCharsets.UTF_8));
    } finally {
      process.destroyForcibly();
      Files.deleteIfExists(stdout);
      Files.deleteIfExists(stderr);
    }
  }
}
