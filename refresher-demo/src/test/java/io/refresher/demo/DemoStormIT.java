package io.refresher.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Runs the README's storm demo ({@code java -jar refresher-demo.jar demo --storm}) in its own JVM
 * with its defaults and checks its summary: 1,000 product keys made hot by Zipf-distributed reads,
 * Redis SIGKILLed after 20 s and started again empty, the database bounded to 100 source queries
 * per second. About 40 s.
 *
 * <ul>
 *   <li>the refill finished: every lost key back, the service's prewarm {@code finished};
 *   <li>hottest first: the top 10% were all back before half of the bottom 50% were, and at most
 *       5% of the bottom 50% by then (a key the plan left out because its popularity had decayed
 *       just below the threshold comes back as soon as reads make it hot again, ahead of the plan);
 *   <li>the database, by its own clock, never started more than 5% over the bound in any second
 *       of the refill (docs/prewarm.md: a query can start tens of ms after its permit), and every
 *       source query was seen starting;
 *   <li>no read missed a hot key before the loss, and none missed a key already back after it.
 * </ul>
 */
class DemoStormIT {

  private static final int BOUND = 100;
  private static final Pattern BEFORE = Pattern.compile("Before the loss: ([\\d,]+) reads, (\\d+) misses while hot");
  private static final Pattern LOST =
      Pattern.compile("Lost: ([\\d,]+) popular product keys .*; the service's refill set out to write ([\\d,]+) keys");
  private static final Pattern REFILL =
      Pattern.compile(
          "Refill (finished|NOT finished): all back after ([\\d.]+) s \\(([\\d,]+) of ([\\d,]+); prewarm (\\w+)\\)\\."
              + " Hottest first: (yes|NO); the top 10% were all back after ([\\d.]+) s, when (\\d+) of the ([\\d,]+)"
              + " keys of the bottom 50% were \\([\\d.]+%\\); the bottom 50%: first back after [\\d.]+ s, half after"
              + " ([\\d.]+) s\\.");
  private static final Pattern DATABASE =
      Pattern.compile(
          "Database: at most (\\d+) source queries started in any one second during the refill, bound (\\d+)"
              + " \\(([-+][\\d.]+)%\\); at most (\\d+) before the loss; ([\\d,]+) started from the restart to the end"
              + " \\(by its clock; ([\\d,]+) seen starting, ([\\d,]+) completed by pg_stat_statements\\)");
  private static final Pattern AFTER = Pattern.compile("(\\d+) misses of keys already back");

  @Test
  void stormDemo_redisKilledEmpty_hottestKeysBackFirst_withinTheBound() throws Exception {
    DemoRun run = DemoRun.of(Duration.ofMinutes(3), "--storm");
    String printed = run.printed();
    System.out.println(printed);

    assertThat(run.exited()).as("demo finished; output:%n%s", printed).isTrue();
    assertThat(run.exitCode()).as("exit code; output:%n%s", printed).isZero();
    Matcher before = find(BEFORE, printed);
    Matcher lost = find(LOST, printed);
    Matcher refill = find(REFILL, printed);
    Matcher database = find(DATABASE, printed);
    Matcher after = find(AFTER, printed);

    assertThat(number(before.group(1))).as("reads before the loss").isGreaterThan(30_000);
    assertThat(Long.parseLong(before.group(2))).as("misses while hot before the loss").isZero();

    long lostKeys = number(lost.group(1));
    assertThat(lostKeys).as("popular keys lost (of 1,000)").isGreaterThanOrEqualTo(900);
    assertThat(refill.group(1)).as("refill").isEqualTo("finished");
    assertThat(number(refill.group(3))).as("keys back").isEqualTo(lostKeys);
    assertThat(refill.group(5)).as("prewarm state").isEqualTo("finished");
    double allBack = Double.parseDouble(refill.group(2));
    // 1,000 keys at 100/s (the limiter holds about 5% under it), noticing the loss (~1 s), and room
    // for a loaded machine.
    assertThat(allBack).as("s until all were back").isLessThanOrEqualTo(lostKeys * 1.25 / BOUND + 10);

    assertThat(refill.group(6)).as("hottest first").isEqualTo("yes");
    double top10 = Double.parseDouble(refill.group(7));
    long bottomBackWithTop = Long.parseLong(refill.group(8));
    long bottom = number(refill.group(9));
    double bottomHalf = Double.parseDouble(refill.group(10));
    assertThat(top10).as("s until the top 10%% were back").isLessThan(bottomHalf);
    assertThat(bottomBackWithTop).as("bottom 50%% keys back by then").isLessThanOrEqualTo(bottom / 20);

    long maxPerSecond = Long.parseLong(database.group(1));
    assertThat(Long.parseLong(database.group(2))).isEqualTo(BOUND);
    System.out.printf(
        "storm demo: most source queries in one second of the refill %d (bound %d, %s%%), before the loss %s%n",
        maxPerSecond, BOUND, database.group(3), database.group(4));
    assertThat(maxPerSecond).as("source queries in the busiest second of the refill").isLessThanOrEqualTo(BOUND + BOUND / 20);
    // Queries seen starting (pg_stat_activity sampled every 50 ms; a query sleeps 200 ms), none
    // twice. A query runs unseen only when the sampler's thread gets no CPU for 0.2 s: a clean-clone
    // run on a 2-core machine under other builds saw 1,998 of 2,023 (98.8%). The busiest-second
    // count above is taken from these starts, so most must be seen for it to mean something.
    long completed = number(database.group(7));
    assertThat(number(database.group(6))).as("queries seen starting").isBetween(completed * 97 / 100, completed + 5);
    // Each key computed about once.
    long planned = number(lost.group(2));
    assertThat(number(database.group(5)))
        .as("source queries during the refill")
        .isBetween(Math.min(lostKeys, planned), Math.max(lostKeys, planned) * 105 / 100);

    assertThat(Long.parseLong(after.group(1))).as("misses of keys already back").isZero();
  }

  private static Matcher find(Pattern pattern, String printed) {
    Matcher matcher = pattern.matcher(printed);
    assertThat(matcher.find()).as("%s in:%n%s", pattern, printed).isTrue();
    return matcher;
  }

  private static long number(String text) {
    return Long.parseLong(text.replace(",", ""));
  }

  /**
   * Ends the demo if it still runs: SIGTERM first, so its shutdown hooks stop the embedded Redis and
   * PostgreSQL; then SIGKILL for it and the servers it started.
   */

}
