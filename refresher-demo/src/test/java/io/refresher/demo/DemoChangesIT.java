package io.refresher.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Runs {@code demo --changes} as the README shows it, in its own JVM, and checks its summary:
 * every committed change reached Redis through the change feed, the products' source ran about once
 * per change, and no reader missed a hot key; the key deleted on change the usual way did miss.
 */
class DemoChangesIT {

  private static final Pattern FEED =
      Pattern.compile("Change feed \\([^)]+\\): (\\d+) changes committed; (\\d+) in Redis after the commit within p50 (\\d+) ms, max (\\d+) ms.*?(\\d+) not within 2 s\\. The products' source ran (\\d+) times");
  private static final Pattern READERS = Pattern.compile("Readers: ([\\d,]+) reads of the products, (\\d+) misses while hot");
  private static final Pattern WHILE_STOPPED =
      Pattern.compile("While stopped: a change committed while the service was stopped was in Redis (\\d+) ms after the service was ready again");
  private static final Pattern USUAL = Pattern.compile("\\((\\w+ )?on change\\): [\\d,]+ reads of \\S+, (\\d+) deletions, (\\d+) misses and (\\d+) database queries");

  @Test
  void changesDemo_everyCommittedChangeReachesRedis_withoutAMissWhileHot() throws Exception {
    DemoRun run = DemoRun.of(Duration.ofMinutes(3), "--changes", "--seconds", "12", "--rate", "1000");
    assertSummary(run, 6);
  }

  /**
   * {@code demo --changes --feed log} as the README shows it: the same, with the changes read from
   * the write-ahead log, and a change committed while the service was stopped in Redis after it
   * starts again.
   */
  @Test
  void changesDemoOnTheLog_everyChangeReachesRedis_alsoOneMadeWhileStopped() throws Exception {
    DemoRun run = DemoRun.of(Duration.ofMinutes(3), "--changes", "--feed", "log", "--seconds", "7", "--rate", "1000");
    assertSummary(run, 3);
    Matcher stopped = WHILE_STOPPED.matcher(run.printed());
    assertThat(stopped.find()).as("the change made while stopped arrived; output:%n%s", run.printed()).isTrue();
    assertThat(Long.parseLong(stopped.group(1))).as("ms after the service was ready").isLessThanOrEqualTo(10_000);
  }

  private static void assertSummary(DemoRun run, int minChanges) {
    String printed = run.printed();

    assertThat(run.exited()).as("demo finished; output:%n%s", printed).isTrue();
    assertThat(run.exitCode()).as("exit code; output:%n%s", printed).isZero();
    Matcher feed = FEED.matcher(printed);
    Matcher readers = READERS.matcher(printed);
    Matcher usual = USUAL.matcher(printed);
    assertThat(feed.find() && readers.find() && usual.find()).as("summary in:%n%s", printed).isTrue();
    int changes = Integer.parseInt(feed.group(1));
    assertThat(changes).isGreaterThanOrEqualTo(minChanges);
    assertThat(Integer.parseInt(feed.group(2))).as("changes in Redis; output:%n%s", printed).isEqualTo(changes);
    assertThat(Integer.parseInt(feed.group(5))).isZero();
    assertThat(Long.parseLong(feed.group(6))).as("source runs for %d changes", changes).isBetween((long) changes, 2L * changes + 4);
    assertThat(Long.parseLong(readers.group(1).replace(",", ""))).isGreaterThan(3_000);
    assertThat(Long.parseLong(readers.group(2))).as("misses while hot; output:%n%s", printed).isZero();
    assertThat(Long.parseLong(usual.group(3))).as("misses after deleting on change").isGreaterThan(0);
  }
}
