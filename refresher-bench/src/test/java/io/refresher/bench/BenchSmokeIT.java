package io.refresher.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The whole benchmark in its tiny mode, in-process ({@link Bench#run}, which does not exit): every
 * phase runs without failing and leaves its section, the summary has the ceiling, and every chart
 * the report shows is a PNG. Whatever phases {@link Bench#allPhases()} holds: a phase's sections
 * have ids that are its id or start with it and a dash.
 */
class BenchSmokeIT {

  private static final Set<String> NOT_SECTIONS = Set.of("title", "machine", "ceiling");
  private static final Pattern IMAGE = Pattern.compile("!\\[[^\\]]*\\]\\(([^)]+)\\)");
  private static final byte[] PNG = {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};

  @TempDir Path out;

  @Test
  void tinyRun_everyPhaseReports() throws Exception {
    System.setProperty("java.awt.headless", "true");
    long started = System.nanoTime();
    int status = Bench.run(new String[] {"--tiny", "--out", out.toString()});
    System.out.printf("BenchSmokeIT: the tiny run took %.1f s%n", (System.nanoTime() - started) / 1e9);

    assertThat(status).as("exit status (1: a phase failed)").isZero();
    Path run;
    try (Stream<Path> runs = Files.list(out)) {
      List<Path> directories = runs.filter(Files::isDirectory).toList();
      assertThat(directories).hasSize(1);
      run = directories.get(0);
    }
    assertThat(run.getFileName().toString()).endsWith("-tiny");

    JsonNode summary = new ObjectMapper().readTree(run.resolve("summary.json").toFile());
    JsonNode ceiling = summary.get("ceiling");
    assertThat(ceiling).as("summary.json's ceiling").isNotNull();
    assertThat(ceiling.isObject()).as("ceiling is measured").isTrue();
    for (String figure : List.of("refreshesPerSecond", "queriesPerSecond", "writesPerSecond")) {
      assertThat(ceiling.path(figure).asDouble()).as("ceiling " + figure).isPositive();
    }

    List<String> sections = new ArrayList<>();
    summary.fieldNames().forEachRemaining(name -> {
      if (!NOT_SECTIONS.contains(name)) {
        sections.add(name);
      }
    });
    assertThat(sections).noneMatch(id -> id.endsWith("-failed"));
    assertThat(Bench.allPhases()).isNotEmpty();
    for (Phase phase : Bench.allPhases()) {
      assertThat(sections)
          .as("a section of phase " + phase.id())
          .anyMatch(id -> id.equals(phase.id()) || id.startsWith(phase.id() + "-"));
    }

    String report = Files.readString(run.resolve("report.md"));
    assertThat(report.lines().filter(line -> line.startsWith("## ")).count())
        .as("report.md: the machine's heading and one per section")
        .isEqualTo(1 + sections.size());
    Matcher image = IMAGE.matcher(report);
    int charts = 0;
    while (image.find()) {
      Path chart = run.resolve(image.group(1));
      assertThat(chart).as("chart " + image.group(1)).isRegularFile();
      byte[] bytes = Files.readAllBytes(chart);
      assertThat(bytes.length).isGreaterThan(PNG.length);
      assertThat(java.util.Arrays.copyOf(bytes, PNG.length)).as(image.group(1) + " is a PNG").isEqualTo(PNG);
      charts++;
    }
    System.out.printf("BenchSmokeIT: %d sections, %d charts%n", sections.size(), charts);
  }
}
