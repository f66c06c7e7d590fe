package io.refresher.refresh;

import static org.assertj.core.api.Assertions.assertThat;

import io.refresher.refresh.ChangeCoalescer.Result;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

class ChangeCoalescerTest {

  private static final Instant T0 = Instant.parse("2025-03-01T12:00:00Z");
  private static final Duration WINDOW = Duration.ofMillis(50);
  private static final Duration MAX_BUSY = Duration.ofSeconds(10);

  private final ManualTime time = new ManualTime(T0);
  private final CountingEvents events = new CountingEvents();
  /** Start times of the runs, ms after T0, with their key. */
  private final List<String> runs = new ArrayList<>();
  private final List<Long> runStarts = new ArrayList<>();
  /** What each run answers, in order; DONE when empty. */
  private final Deque<Function<String, Result>> answers = new ArrayDeque<>();
  private Duration runTakes = Duration.ZERO;

  private ChangeCoalescer coalescer(Duration window, int maxPendingKeys) {
    return new ChangeCoalescer(
        key -> {
          runs.add(key);
          runStarts.add(time.millis() - T0.toEpochMilli());
          time.pass(runTakes);
          Function<String, Result> answer = answers.poll();
          return answer == null ? Result.DONE : answer.apply(key);
        },
        time,
        time,
        window,
        maxPendingKeys,
        MAX_BUSY,
        events);
  }

  @Test
  void changed_nothingGoingOn_runsAtOnce() {
    ChangeCoalescer coalescer = coalescer(WINDOW, 100);

    coalescer.changed("product:1");
    time.runDue();

    assertThat(runs).containsExactly("product:1");
    assertThat(runStarts).containsExactly(0L);
  }

  @Test
  void changed_severalWithinTheWindow_foldedIntoOneRunAtTheWindowsEnd() {
    ChangeCoalescer coalescer = coalescer(WINDOW, 100);

    coalescer.changed("product:1");
    time.runDue();
    for (int i = 0; i < 3; i++) {
      time.advance(Duration.ofMillis(10));
      coalescer.changed("product:1");
    }
    time.advance(Duration.ofSeconds(1));

    assertThat(runStarts).containsExactly(0L, 50L);
    assertThat(events.coalesced).isEqualTo(3);
    assertThat(coalescer.pendingKeys()).as("forgotten after a quiet window").isZero();
  }

  @Test
  void changed_afterAQuietWindow_runsAtOnceAgain() {
    ChangeCoalescer coalescer = coalescer(WINDOW, 100);

    coalescer.changed("product:1");
    time.advance(Duration.ofMillis(70));
    coalescer.changed("product:1");
    time.runDue();

    assertThat(runStarts).containsExactly(0L, 70L);
    assertThat(events.coalesced).isZero();
  }

  @Test
  void changed_duringARunLongerThanTheWindow_oneMoreRunWhenItEnds() {
    ChangeCoalescer coalescer = coalescer(WINDOW, 100);
    runTakes = Duration.ofMillis(200);
    answers.add(
        key -> {
          // changes arrive while the first run is going on (on the listener's thread, really)
          coalescer.changed(key);
          coalescer.changed(key);
          return Result.DONE;
        });

    coalescer.changed("product:1");
    time.advance(Duration.ofSeconds(2));

    assertThat(runStarts).as("never two at once: the second starts when the first ends").containsExactly(0L, 200L);
  }

  @Test
  void actionAnsweringLater_theKeyStaysInItsRunUntilThen_changesMeanwhileOweOneMoreRun_appliedToldOnlyThen() {
    List<java.util.concurrent.CompletableFuture<Result>> started = new ArrayList<>();
    List<Boolean> told = new ArrayList<>();
    ChangeCoalescer coalescer =
        new ChangeCoalescer(
            new ChangeCoalescer.Action() {
              @Override
              public Result run(String key) {
                throw new AssertionError("the coalescer starts runs, it does not wait for them");
              }

              @Override
              public java.util.concurrent.CompletionStage<Result> start(String key) {
                runStarts.add(time.millis() - T0.toEpochMilli());
                java.util.concurrent.CompletableFuture<Result> answer = new java.util.concurrent.CompletableFuture<>();
                started.add(answer);
                return answer;
              }
            },
            time,
            time,
            WINDOW,
            100,
            MAX_BUSY,
            events);

    coalescer.changed("product:1", told::add);
    time.runDue();
    time.advance(Duration.ofMillis(120));
    coalescer.changed("product:1", told::add);
    time.advance(Duration.ofSeconds(1));
    assertThat(runStarts).as("no second run while the first has not answered").containsExactly(0L);
    assertThat(told).isEmpty();

    started.get(0).complete(Result.DONE); // at 1,120 ms, past the window
    time.runDue();
    assertThat(told).as("the first change, applied when its run answered").containsExactly(true);
    assertThat(runStarts).as("the change that came meanwhile runs once, when the first ended").containsExactly(0L, 1120L);

    started.get(1).complete(Result.FAILED);
    time.advance(Duration.ofSeconds(1));
    assertThat(told).containsExactly(true, false);
    assertThat(coalescer.pendingKeys()).isZero();
  }

  @Test
  void changed_differentKeys_eachRunsAtOnce() {
    ChangeCoalescer coalescer = coalescer(WINDOW, 100);

    coalescer.changed("product:1");
    coalescer.changed("product:2");
    time.runDue();

    assertThat(runs).containsExactlyInAnyOrder("product:1", "product:2");
    assertThat(runStarts).containsExactly(0L, 0L);
  }

  @Test
  void changed_thousandWithinOneSecond_atMostOneRunPerWindowPlusOne_andTheLastAfterTheLastChange() {
    ChangeCoalescer coalescer = coalescer(WINDOW, 100);
    runTakes = Duration.ofMillis(3);

    long lastChange = 0;
    for (int i = 0; i < 1000; i++) {
      // one change a millisecond (a change due while a run passes time comes right after it)
      time.advance(Duration.ofMillis(Math.max(0, i - (time.millis() - T0.toEpochMilli()))));
      coalescer.changed("product:1");
      lastChange = time.millis() - T0.toEpochMilli();
    }
    time.advance(Duration.ofSeconds(2));

    assertThat(lastChange).as("the burst lasted under a second").isLessThan(1000);
    assertThat(runStarts.size()).as("runs for 1,000 changes in 1 s, window 50 ms: %s", runStarts).isLessThanOrEqualTo(1000 / 50 + 1);
    assertThat(runStarts.get(runStarts.size() - 1)).as("a run started after the last change").isGreaterThanOrEqualTo(lastChange);
    for (int i = 1; i < runStarts.size(); i++) {
      assertThat(runStarts.get(i) - runStarts.get(i - 1)).as("runs start a window apart at least").isGreaterThanOrEqualTo(50);
    }
    assertThat(events.coalesced).isEqualTo(1000 - 1);
  }

  @Test
  void changed_zeroWindow_changesDuringARunStillFoldIntoOne() {
    ChangeCoalescer coalescer = coalescer(Duration.ZERO, 100);
    runTakes = Duration.ofMillis(5);
    answers.add(
        key -> {
          coalescer.changed(key);
          coalescer.changed(key);
          return Result.DONE;
        });

    coalescer.changed("product:1");
    time.advance(Duration.ofSeconds(1));

    assertThat(runStarts).containsExactly(0L, 5L);
  }

  @Test
  void run_keyLockedByAnotherRefresh_triedAgainWithDoublingDelaysUntilItIsFree() {
    ChangeCoalescer coalescer = coalescer(WINDOW, 100);
    for (int i = 0; i < 4; i++) {
      answers.add(key -> new Result.Busy(null));
    }

    coalescer.changed("product:1");
    time.advance(Duration.ofSeconds(5));

    // busy at 0, 50, 150, 350; done at 750; nothing after
    assertThat(runStarts).containsExactly(0L, 50L, 150L, 350L, 750L);
    assertThat(events.retried).isEqualTo(4);
    assertThat(coalescer.pendingKeys()).isZero();
  }

  @Test
  void run_lockEndsBeforeTheBackoff_triedRightAfterTheLockEnds() {
    ChangeCoalescer coalescer = coalescer(WINDOW, 100);
    for (int i = 0; i < 3; i++) {
      answers.add(key -> new Result.Busy(null));
    }
    // the fourth try learns that the lock ends 100 ms from now: sooner than the next backoff (400 ms)
    answers.add(key -> new Result.Busy(time.instant().plusMillis(100)));

    coalescer.changed("product:1");
    time.advance(Duration.ofSeconds(5));

    assertThat(runStarts).containsExactly(0L, 50L, 150L, 350L, 350L + 100 + ChangeCoalescer.LOCK_END_MARGIN.toMillis());
  }

  @Test
  void run_lockEndsWithinTheWindow_triedAWindowAfterThePreviousStart() {
    ChangeCoalescer coalescer = coalescer(WINDOW, 100);
    answers.add(key -> new Result.Busy(time.instant().plusMillis(1)));

    coalescer.changed("product:1");
    time.advance(Duration.ofSeconds(5));

    assertThat(runStarts).containsExactly(0L, 50L);
  }

  @Test
  void run_busyRetryBackoff_cappedAtOneSecond() {
    ChangeCoalescer coalescer = coalescer(WINDOW, 100);
    for (int i = 0; i < 8; i++) {
      answers.add(key -> new Result.Busy(null));
    }

    coalescer.changed("product:1");
    time.advance(Duration.ofSeconds(30));

    List<Long> gaps = new ArrayList<>();
    for (int i = 1; i < runStarts.size(); i++) {
      gaps.add(runStarts.get(i) - runStarts.get(i - 1));
    }
    assertThat(gaps).containsExactly(50L, 100L, 200L, 400L, 800L, 1000L, 1000L, 1000L);
  }

  @Test
  void run_lockedLongerThanMaxBusy_givenUpAndCounted() {
    ChangeCoalescer coalescer = coalescer(WINDOW, 100);
    for (int i = 0; i < 100; i++) {
      answers.add(key -> new Result.Busy(null));
    }

    coalescer.changed("product:1");
    time.advance(Duration.ofSeconds(60));

    assertThat(events.failed).isEqualTo(1);
    assertThat(runStarts.get(runStarts.size() - 1)).as("the last try, a little after 10 s").isBetween(10_000L, 11_100L);
    assertThat(coalescer.pendingKeys()).isZero();
  }

  @Test
  void changed_whileWaitingForALockedKey_noExtraRun() {
    ChangeCoalescer coalescer = coalescer(WINDOW, 100);
    answers.add(key -> new Result.Busy(null));

    coalescer.changed("product:1");
    time.advance(Duration.ofMillis(20));
    coalescer.changed("product:1");
    time.advance(Duration.ofSeconds(5));

    assertThat(runStarts).containsExactly(0L, 50L);
  }

  @Test
  void changed_pendingSetFull_newKeysRefusedForTheCallerToOfferAgain_untilAKeyIsForgotten() {
    ChangeCoalescer coalescer = coalescer(WINDOW, 2);

    assertThat(coalescer.changed("a")).isTrue();
    assertThat(coalescer.changed("b")).isTrue();
    assertThat(coalescer.changed("c")).as("no room: the caller waits for room and offers it again").isFalse();
    assertThat(coalescer.isClosed()).isFalse();
    assertThat(coalescer.changed("a")).as("a key already pending is still taken").isTrue();
    time.advance(Duration.ofMillis(200));
    assertThat(coalescer.changed("c")).isTrue();
    time.runDue();

    assertThat(events.dropped).as("refusing is not dropping: the caller decides").isZero();
    assertThat(runs).containsExactly("a", "b", "a", "c");
  }

  @Test
  void run_actionThrows_countedAndTheKeyRunsAgainOnTheNextChange() {
    ChangeCoalescer coalescer = coalescer(WINDOW, 100);
    answers.add(
        key -> {
          throw new IllegalStateException("boom");
        });

    coalescer.changed("product:1");
    time.advance(Duration.ofMillis(100));
    coalescer.changed("product:1");
    time.runDue();

    assertThat(events.failed).isEqualTo(1);
    assertThat(runStarts).containsExactly(0L, 100L);
  }

  @Test
  void close_plannedRunsDoNotStart_andChangesAreRefused() {
    ChangeCoalescer coalescer = coalescer(WINDOW, 100);
    coalescer.changed("product:1");
    time.runDue();
    coalescer.changed("product:1");

    coalescer.close();
    time.advance(Duration.ofSeconds(1));

    assertThat(coalescer.changed("product:2")).isFalse();
    assertThat(runStarts).containsExactly(0L);
  }

  /**
   * Random changes to a few keys, random run times, random locks: runs of a key never overlap,
   * start a window apart at least, and every change is followed by a run of its key that started
   * after it (none is lost).
   */
  @Test
  void changed_randomTraffic_noOverlapWindowApartAndNoChangeLost() {
    SplittableRandom random = new SplittableRandom(11);
    List<long[]> runsByKey = new ArrayList<>(); // key index, start, end, 1 if done (0: found locked)
    List<long[]> changes = new ArrayList<>(); // key index, at
    boolean[] running = new boolean[3];
    long[] lastEnd = new long[3];
    ChangeCoalescer coalescer =
        new ChangeCoalescer(
            key -> {
              int k = key.charAt(1) - '0';
              assertThat(running[k]).as("two runs of %s at once", key).isFalse();
              running[k] = true;
              long start = time.millis();
              time.pass(Duration.ofMillis(random.nextInt(0, 120)));
              running[k] = false;
              lastEnd[k] = time.millis();
              boolean busy = random.nextInt(10) == 0;
              runsByKey.add(new long[] {k, start, time.millis(), busy ? 0 : 1});
              return busy ? new Result.Busy(time.instant().plusMillis(random.nextInt(0, 300))) : Result.DONE;
            },
            time,
            time,
            WINDOW,
            100,
            MAX_BUSY,
            events);
    for (int i = 0; i < 3000; i++) {
      int k = random.nextInt(3);
      changes.add(new long[] {k, time.millis()});
      coalescer.changed("k" + k);
      time.advance(Duration.ofMillis(random.nextInt(0, 40)));
    }
    time.advance(Duration.ofSeconds(30));

    for (int k = 0; k < 3; k++) {
      long previousStart = Long.MIN_VALUE / 2;
      long previousEnd = Long.MIN_VALUE / 2;
      for (long[] run : runsByKey) {
        if (run[0] != k) {
          continue;
        }
        assertThat(run[1] - previousStart).as("window between starts of k%d", k).isGreaterThanOrEqualTo(50);
        assertThat(run[1]).as("k%d starts after its previous run ended", k).isGreaterThanOrEqualTo(previousEnd);
        previousStart = run[1];
        previousEnd = run[2];
      }
    }
    for (long[] change : changes) {
      boolean followed = false;
      for (long[] run : runsByKey) {
        if (run[0] == change[0] && run[1] >= change[1] && run[3] == 1) {
          followed = true;
          break;
        }
      }
      assertThat(followed).as("change of k%d at %d followed by a run that started after it and applied it", change[0], change[1]).isTrue();
    }
    assertThat(coalescer.pendingKeys()).isZero();
  }

  /** Counts what the coalescer reports. */

  @Test
  void changedWithCallback_toldAppliedAfterARunThatStartedAfterIt() {
    ChangeCoalescer coalescer = coalescer(WINDOW, 100);
    List<Boolean> first = new ArrayList<>();
    List<Boolean> second = new ArrayList<>();

    coalescer.changed("product:1", first::add);
    time.runDue();
    // the run has started and ended: a change now is owed by the next run, at the window's end
    coalescer.changed("product:1", second::add);
    time.runDue();

    assertThat(first).containsExactly(true);
    assertThat(second).as("not told before the run that applies it").isEmpty();
    time.advance(WINDOW);
    assertThat(second).containsExactly(true);
    assertThat(runs).hasSize(2);
  }

  @Test
  void changedWithCallback_keyLocked_toldOnlyAfterTheRetryApplies() {
    ChangeCoalescer coalescer = coalescer(WINDOW, 100);
    List<Boolean> told = new ArrayList<>();
    answers.add(key -> new Result.Busy(time.instant().plusMillis(100)));

    coalescer.changed("product:1", told::add);
    time.runDue();
    assertThat(told).as("a locked key's change is not applied yet").isEmpty();
    time.advance(Duration.ofSeconds(1));

    assertThat(told).containsExactly(true);
    assertThat(runs).hasSize(2);
  }

  @Test
  void changedWithCallback_runFails_toldNotApplied() {
    ChangeCoalescer coalescer = coalescer(WINDOW, 100);
    List<Boolean> told = new ArrayList<>();
    answers.add(key -> Result.FAILED);

    coalescer.changed("product:1", told::add);
    time.runDue();

    assertThat(told).containsExactly(false);
  }

  @Test
  void changedWithCallback_runThrows_toldNotApplied() {
    ChangeCoalescer coalescer = coalescer(WINDOW, 100);
    List<Boolean> told = new ArrayList<>();
    answers.add(key -> {
      throw new IllegalStateException("boom");
    });

    coalescer.changed("product:1", told::add);
    time.runDue();

    assertThat(told).containsExactly(false);
  }

  @Test
  void changedWithCallback_closedBeforeItsRun_toldNotApplied() {
    ChangeCoalescer coalescer = coalescer(WINDOW, 100);
    List<Boolean> told = new ArrayList<>();

    coalescer.changed("product:1");
    time.runDue();
    coalescer.changed("product:1", told::add);
    coalescer.close();

    assertThat(told).containsExactly(false);
  }

  @Test
  void changedWithCallback_lockedPastMaxBusy_toldNotApplied() {
    ChangeCoalescer coalescer = coalescer(WINDOW, 100);
    List<Boolean> told = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      answers.add(key -> new Result.Busy(null));
    }

    coalescer.changed("product:1", told::add);
    time.advance(MAX_BUSY.plusSeconds(5));

    assertThat(told).containsExactly(false);
  }

  static final class CountingEvents implements ChangeEvents {
    int received;
    int coalesced;
    int refreshed;
    int evicted;
    int ignored;
    volatile int dropped;
    volatile int deferred;
    int retried;
    int failed;

    @Override
    public void received() {
      received++;
    }

    @Override
    public void coalesced() {
      coalesced++;
    }

    @Override
    public void refreshed() {
      refreshed++;
    }

    @Override
    public void evicted() {
      evicted++;
    }

    @Override
    public void ignored() {
      ignored++;
    }

    @Override
    public void dropped() {
      dropped++;
    }

    @Override
    public void deferred() {
      deferred++;
    }

    @Override
    public void retried() {
      retried++;
    }

    @Override
    public void failed() {
      failed++;
    }
  }
}
