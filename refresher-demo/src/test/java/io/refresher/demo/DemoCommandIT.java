package io.refresher.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Runs the README's demo command exactly as a newcomer would ({@code java -jar refresher-demo.jar
 * demo}), in its own JVM, and checks what it printed: hot keys never missed, and the database ran
 * about one source query per key per refresh cycle.
 */
class DemoCommandIT {

  private static final Pattern HOT =
      Pattern.compile("(\\d+) hot keys kept fresh by Refresher: ([\\d,]+) reads, (\\d+) misses; the database ran (\\d+) source");

  @Test
  void demo_runForTwelveSeconds_hotKeysNeverMissAndSourcesRunOncePerCycle() throws Exception {
    Path jar = Path.of(System.getProperty("demo.jar", "target/refresher-demo.jar"));
    assertThat(jar).exists();
    Path output = Files.createTempFile("demo", ".out");
    Process process =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx512m",
                "-jar",
                jar.toString(),
                "demo",
                "--seconds",
                "12",
                "--rate",
                "1000")
            .redirectErrorStream(true)
            .redirectOutput(output.toFile())
            .start();
    boolean exited = process.waitFor(4, TimeUnit.MINUTES);
    if (!exited) {
      process.destroyForcibly();
    }
    String printed = read(output);

    assertThat(exited).as("demo finished; output:%n%s", printed).isTrue();
    assertThat(process.exitValue()).as("exit code; output:%n%s", printed).isZero();
    Matcher summary = HOT.matcher(printed);
    assertThat(summary.find()).as("summary line in:%n%s", printed).isTrue();
    long keys = Long.parseLong(summary.group(1));
    long reads = Long.parseLong(summary.group(2).replace(",", ""));
    long misses = Long.parseLong(summary.group(3));
    long sourceQueries = Long.parseLong(summary.group(4));
    assertThat(misses).isZero();
    assertThat(reads).isGreaterThan(5_000);
    // 12 s with 10 s TTLs and a 2 s TTR: each product key is refreshed once (at about 8 s).
    assertThat(sourceQueries).isBetween(keys / 2, keys * 2);
    assertThat(printed).contains("cache-aside key");
  }

  private static String read(Path file) throws IOException {
    return Files.readString(file, StandardCharsets.UTF_8);
  }
}
