package io.refresher.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Runs the README's demo command exactly as a newcomer would ({@code java -jar refresher-demo.jar
 * demo}), in its own JVM, and checks what it printed: hot keys never missed, and the database ran
 * about one source query per key per refresh cycle.
 */
class DemoCommandIT {

  private static final Pattern READS =
      Pattern.compile("Keys read through the client library: ([\\d,]+) reads, (\\d+) misses while hot \\((\\d+) misses before");
  private static final Pattern HOT_SET =
      Pattern.compile("Hot set: (\\d+) keys promoted from reads alone, (\\d+) demoted when no longer read; (\\d+) of the");
  private static final Pattern SOURCE = Pattern.compile("The database ran (\\d+) source queries \\((\\d+) refreshes");
  private static final Pattern AUDIT = Pattern.compile("Consistency audit \\(GET /v1/audit\\): (\\d+) samples .*?, (\\d+) mismatched");

  /**
   * 40 s: readers read products 1-4 (never registered: a template covers them) for 20 s, then
   * products 5-8. Each set becomes hot from reads alone; the first set is demoted and expires.
   */
  @Test
  void demo_readersThroughTheClient_makeTemplateKeysHot_thenColdKeysExpire() throws Exception {
    DemoRun run = DemoRun.of(Duration.ofMinutes(4), "--seconds", "40", "--rate", "1000");
    String printed = run.printed();

    assertThat(run.exited()).as("demo finished; output:%n%s", printed).isTrue();
    assertThat(run.exitCode()).as("exit code; output:%n%s", printed).isZero();
    Matcher reads = READS.matcher(printed);
    Matcher hotSet = HOT_SET.matcher(printed);
    Matcher source = SOURCE.matcher(printed);
    assertThat(reads.find() && hotSet.find() && source.find()).as("summary in:%n%s", printed).isTrue();
    assertThat(Long.parseLong(reads.group(1).replace(",", ""))).isGreaterThan(10_000);
    assertThat(Long.parseLong(reads.group(2))).as("misses while hot; output:%n%s", printed).isZero();
    long promoted = Long.parseLong(hotSet.group(1));
    long demoted = Long.parseLong(hotSet.group(2));
    long expired = Long.parseLong(hotSet.group(3));
    assertThat(promoted).as("products 1-8 promoted from reads; output:%n%s", printed).isGreaterThanOrEqualTo(8);
    assertThat(demoted).as("products 1-4 demoted; output:%n%s", printed).isGreaterThanOrEqualTo(4);
    assertThat(expired).as("products 1-4 expired; output:%n%s", printed).isEqualTo(4);
    // About one query per hot key per 4 s cycle, and the audit's (2 a second, on in the demo): far
    // below one per read.
    assertThat(Long.parseLong(source.group(1))).isBetween(8L, 300L);
    assertThat(Long.parseLong(source.group(2))).isBetween(8L, 200L);
    Matcher audit = AUDIT.matcher(printed);
    assertThat(audit.find()).as("the audit's line in:%n%s", printed).isTrue();
    assertThat(Long.parseLong(audit.group(1))).as("audit samples").isPositive();
    assertThat(Long.parseLong(audit.group(2))).as("audit mismatches; output:%n%s", printed).isZero();
    assertThat(printed).contains("cache-aside");
  }

}
