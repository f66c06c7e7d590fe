package io.refresher.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The alert rules' own unit tests ({@code deploy/monitoring/refresher-rules.test.yml}, input
 * series and the alerts expected of them) pass under {@code promtool test rules}. Skipped where
 * promtool is not installed (Debian: {@code apt-get install prometheus}).
 *
 * <p>Guards issue 18, point 2: {@code RefresherPrewarmStuck} counted only refilled keys, so a
 * refill whose keys leave the plan as skipped would have read as stuck (the old rule fails the
 * "skipped rising" case).
 */
class PromtoolRulesTest {

  @Test
  void alertRuleTests_passUnderPromtool() throws IOException, InterruptedException {
    Optional<Path> promtool = onPath("promtool");
    assumeThat(promtool).as("promtool on the PATH").isPresent();
    Path dir = Path.of("").toAbsolutePath();
    while (!Files.isDirectory(dir.resolve("deploy/monitoring"))) {
      dir = dir.getParent();
    }
    Process process =
        new ProcessBuilder(promtool.get().toString(), "test", "rules", "refresher-rules.test.yml")
            .directory(dir.resolve("deploy/monitoring").toFile())
            .redirectErrorStream(true)
            .start();
    assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("promtool finished").isTrue();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.exitValue()).as("promtool test rules:%n%s", output).isZero();
    assertThat(output).contains("SUCCESS");
  }

  private static Optional<Path> onPath(String name) {
    String path = System.getenv().getOrDefault("PATH", "");
    return Stream.of(path.split(File.pathSeparator))
        .map(dir -> Path.of(dir, name))
        .filter(Files::isExecutable)
        .findFirst();
  }
}
