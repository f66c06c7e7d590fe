package io.refresher.demo;

/**
 * What a demo run observed.
 *
 * @param hotKeyMisses reads that found a key absent after some reader had found it present: the
 *     promise is that these stay at zero
 * @param coldStartMisses reads of a key before any reader had found it: nobody had read it yet, so
 *     it was not hot yet
 * @param expiredCold products no longer read that were gone from Redis at the end
 */
record DemoReport(
    long seconds,
    long hotKeyReads,
    long hotKeyMisses,
    long coldStartMisses,
    long promoted,
    long demoted,
    long expiredCold,
    long sourceQueries,
    long refreshes,
    long cacheAsideReads,
    long cacheAsideMisses,
    long cacheAsideQueries,
    long cacheAsidePeakQueriesPerSecond,
    long auditSamples,
    long auditMismatches) {

  /** This report with the consistency audit's totals ({samples, mismatches}). */
  DemoReport withAudit(long[] audit) {
    return new DemoReport(
        seconds, hotKeyReads, hotKeyMisses, coldStartMisses, promoted, demoted, expiredCold, sourceQueries, refreshes,
        cacheAsideReads, cacheAsideMisses, cacheAsideQueries, cacheAsidePeakQueriesPerSecond, audit[0], audit[1]);
  }

  String summary() {
    return String.format(
        "%nSummary after %d s%n"
            + "  Keys read through the client library: %,d reads, %d misses while hot (%d misses before"
            + " promotion: the first reads of keys nobody had read yet).%n"
            + "  Hot set: %d keys promoted from reads alone, %d demoted when no longer read; %d of the"
            + " products no longer read expired on their own.%n"
            + "  The database ran %d source queries (%d refreshes, the rest the audit's), about one per hot key per"
            + " refresh cycle.%n"
            + "  Consistency audit (GET /v1/audit): %d samples of the kept keys compared with their source, %d"
            + " mismatched.%n"
            + "  1 key cached the usual way (cache-aside, no Refresher): %,d reads, %d misses, %d database"
            + " queries, up to %d in one second: every expiry sends its concurrent readers to the database at"
            + " once.%n",
        seconds,
        hotKeyReads,
        hotKeyMisses,
        coldStartMisses,
        promoted,
        demoted,
        expiredCold,
        sourceQueries,
        refreshes,
        auditSamples,
        auditMismatches,
        cacheAsideReads,
        cacheAsideMisses,
        cacheAsideQueries,
        cacheAsidePeakQueriesPerSecond);
  }
}
