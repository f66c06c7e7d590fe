package io.refresher.demo;

import java.util.Locale;

/**
 * What a storm demo run observed. Times are seconds after the restarted Redis accepted
 * connections; -1 when it did not happen.
 *
 * @param lossAt seconds of reading before the loss
 * @param restartMillis from the SIGKILL until the new, empty Redis accepted connections
 * @param lost popular product keys lost: those in Redis just before the kill
 * @param savedPopularity product keys whose popularity PostgreSQL held at the kill
 * @param prewarmTotal keys the service's refill set out to write ({@code GET /v1/prewarm})
 * @param refillStarted when the service's refill started (its {@code startedAt})
 * @param top10Back when the last key of the top 10% of the lost keys (by popularity) was back
 * @param bottom50 keys in the bottom 50% of the lost keys (by popularity)
 * @param bottom50BackWithTop10 of those, keys back by the time the top 10% were all back: keys
 *     the refill did not plan (their popularity had decayed just below the threshold) come back as
 *     soon as reads after the loss make them hot again, ahead of the plan
 * @param bottom50FirstBack when the first key of the bottom 50% was back
 * @param bottom50HalfBack when half of the bottom 50% were back
 * @param allBack when the last lost key was back
 * @param back lost keys back at the end
 * @param prewarmState the refill's last state ({@code finished} once done)
 * @param maxQueriesPerSecond the most source queries started in any one second (sliding) during
 *     the refill, by the database's own clock ({@code pg_stat_activity.query_start})
 * @param maxQueriesPerSecondBefore the same before the loss (the keys becoming hot)
 * @param bound the database's {@code maxQueriesPerSecond}
 * @param refillQueries source queries started from the restart to the end
 * @param queriesSeen source queries seen starting, all told
 * @param queriesCompleted source queries completed, all told, by pg_stat_statements (the check that
 *     the sampling saw them all)
 * @param hotMisses reads before the loss that found a hot key absent after a reader had found it
 * @param coldStartMisses reads before the loss of keys not yet found by any reader: not hot yet
 * @param refillMisses reads after the restart of keys not back yet
 * @param missesAfterBack reads after the restart that found a key absent after a reader had found
 *     it back
 */
record StormReport(
    int lossAt,
    long restartMillis,
    int lost,
    long savedPopularity,
    long prewarmTotal,
    double refillStarted,
    double top10Back,
    int bottom50,
    int bottom50BackWithTop10,
    double bottom50FirstBack,
    double bottom50HalfBack,
    double allBack,
    int back,
    String prewarmState,
    int maxQueriesPerSecond,
    int maxQueriesPerSecondBefore,
    int bound,
    long refillQueries,
    long queriesSeen,
    long queriesCompleted,
    long readsBefore,
    long hotMisses,
    long coldStartMisses,
    long readsAfter,
    long refillMisses,
    long missesAfterBack) {

  boolean refillFinished() {
    return back == lost && lost > 0 && "finished".equals(prewarmState);
  }

  /**
   * The top 10% were all back before half of the bottom 50%, and at most 5% of the bottom 50% were
   * back by then (the ones the plan left to the reads, see {@code bottom50BackWithTop10}).
   */
  boolean hottestFirst() {
    return top10Back >= 0
        && bottom50HalfBack > top10Back
        && bottom50BackWithTop10 <= bottom50 * 0.05;
  }

  String summary() {
    double overshoot = 100.0 * (maxQueriesPerSecond - bound) / (double) bound;
    return String.format(
        Locale.ROOT,
        "%nStorm summary (Redis SIGKILLed after %d s of reads and started again empty in %d ms; times are"
            + " counted from when it accepted connections again)%n"
            + "  Before the loss: %,d reads, %d misses while hot (%,d misses of keys not in Redis yet: not hot yet,"
            + " or hot and waiting for the bound); popularity of %,d product keys saved in PostgreSQL.%n"
            + "  Lost: %,d popular product keys (in Redis just before the kill); the service's refill set out to"
            + " write %,d keys, from %.1f s.%n"
            + "  Refill %s: all back after %s (%,d of %,d; prewarm %s). Hottest first: %s; the top 10%% were all"
            + " back after %s, when %d of the %,d keys of the bottom 50%% were (%.1f%%); the bottom 50%%: first"
            + " back after %s, half after %s.%n"
            + "  Database: at most %d source queries started in any one second during the refill, bound %d"
            + " (%+.1f%%); at most %d before the loss; %,d started from the restart to the end (by its clock;"
            + " %,d seen starting, %,d completed by pg_stat_statements).%n"
            + "  After the restart: %,d reads, %,d misses of keys not back yet, %d misses of keys already back.%n",
        lossAt,
        restartMillis,
        readsBefore,
        hotMisses,
        coldStartMisses,
        savedPopularity,
        lost,
        prewarmTotal,
        refillStarted,
        refillFinished() ? "finished" : "NOT finished",
        seconds(allBack),
        back,
        lost,
        prewarmState,
        hottestFirst() ? "yes" : "NO",
        seconds(top10Back),
        bottom50BackWithTop10,
        bottom50,
        100.0 * bottom50BackWithTop10 / Math.max(1, bottom50),
        seconds(bottom50FirstBack),
        seconds(bottom50HalfBack),
        maxQueriesPerSecond,
        bound,
        overshoot,
        maxQueriesPerSecondBefore,
        refillQueries,
        queriesSeen,
        queriesCompleted,
        readsAfter,
        refillMisses,
        missesAfterBack);
  }

  private static String seconds(double value) {
    return value < 0 ? "never" : String.format(Locale.ROOT, "%.1f s", value);
  }
}
