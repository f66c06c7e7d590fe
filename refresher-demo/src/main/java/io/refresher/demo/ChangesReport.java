package io.refresher.demo;

import java.util.List;

/**
 * What {@code demo --changes} saw.
 *
 * @param latencies milliseconds from each commit until Redis held the new value, sorted
 * @param notVisible changes not in Redis within the demo's bound
 * @param sourceRuns runs of the products' source during the changes
 */
record ChangesReport(
    int changes,
    List<Long> latencies,
    int notVisible,
    long reads,
    long hotMisses,
    long coldStartMisses,
    long sourceRuns,
    long invalidatedReads,
    long invalidationMisses,
    long invalidationQueries,
    String feed,
    Long whileStoppedMillis) {

  ChangesReport withWhileStopped(Long millis) {
    return new ChangesReport(
        changes, latencies, notVisible, reads, hotMisses, coldStartMisses, sourceRuns, invalidatedReads, invalidationMisses,
        invalidationQueries, feed, millis);
  }

  /** With the log feed: the change committed while the service was stopped arrived (always true with NOTIFY). */
  boolean whileStoppedArrived() {
    return !"log".equals(feed) || whileStoppedMillis != null;
  }

  boolean allVisible() {
    return notVisible == 0 && latencies.size() == changes;
  }

  private long percentile(double p) {
    if (latencies.isEmpty()) {
      return -1;
    }
    int index = (int) Math.ceil(p * latencies.size()) - 1;
    return latencies.get(Math.max(0, Math.min(latencies.size() - 1, index)));
  }

  String summary() {
    String stopped =
        !"log".equals(feed)
            ? ""
            : whileStoppedMillis == null
                ? String.format("  While stopped: a change committed while the service was stopped was NOT in Redis within 10 s of its start.%n")
                : String.format(
                    "  While stopped: a change committed while the service was stopped was in Redis %d ms after the service was ready again (the slot kept it).%n",
                    whileStoppedMillis);
    return String.format(
        "%nChanges summary%n"
            + "  Change feed (%s): %d changes committed; %d in Redis after the commit within p50 %d ms, max %d ms (the product source takes 200 ms);"
            + " %d not within 2 s. The products' source ran %d times for them.%n"
            + "  Readers: %,d reads of the products, %d misses while hot (%d misses before they were hot); the old value was served until the new one replaced it.%n"
            + "  The usual way (delete on change): %,d reads of %s, %d deletions, %d misses and %d database queries right after them.%n"
            + "%s",
        "log".equals(feed) ? "the write-ahead log" : "NOTIFY",
        changes,
        latencies.size(),
        percentile(0.5),
        percentile(1.0),
        notVisible,
        sourceRuns,
        reads,
        hotMisses,
        coldStartMisses,
        invalidatedReads,
        "invalidated:product:9",
        changes,
        invalidationMisses,
        invalidationQueries,
        stopped);
  }
}
