package io.refresher.demo;

/** What a demo run observed. */
record DemoReport(
    long seconds,
    long hotKeys,
    long hotKeyReads,
    long hotKeyMisses,
    long sourceQueries,
    long refreshes,
    long cacheAsideReads,
    long cacheAsideMisses,
    long cacheAsideQueries,
    long cacheAsidePeakQueriesPerSecond) {

  String summary() {
    return String.format(
        "%nSummary after %d s%n"
            + "  %d hot keys kept fresh by Refresher: %,d reads, %d misses; the database ran %d source"
            + " queries (%d refreshes), about one per key per refresh cycle.%n"
            + "  1 key cached the usual way (cache-aside, no Refresher): %,d reads, %d misses, %d database"
            + " queries, up to %d in one second: every expiry sends its concurrent readers to the database at"
            + " once.%n",
        seconds,
        hotKeys,
        hotKeyReads,
        hotKeyMisses,
        sourceQueries,
        refreshes,
        cacheAsideReads,
        cacheAsideMisses,
        cacheAsideQueries,
        cacheAsidePeakQueriesPerSecond);
  }
}
