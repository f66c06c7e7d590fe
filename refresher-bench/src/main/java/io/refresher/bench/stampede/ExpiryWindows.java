package io.refresher.bench.stampede;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The expiry windows of a strategy: around every moment a hot key's current value would expire,
 * from {@code before} (early recomputations and Refresher's refreshes happen then) to {@code
 * after} it (misses and the stampede). A value replaced long before its expiry (more than half a
 * TTL: a warm-up value replaced by a refresh, not a refresh-ahead or an early recomputation)
 * leaves no window: nothing would have happened at its expiry. Everything else of the measured
 * span is steady state.
 */
final class ExpiryWindows {

  private final long[] starts;
  private final long[] ends;

  private ExpiryWindows(long[] starts, long[] ends) {
    this.starts = starts;
    this.ends = ends;
  }

  /**
   * The windows around the expiries of these writes (hot keys' only); a value replaced more than
   * {@code replacedEarlyMicros} before its expiry leaves none.
   */
  static ExpiryWindows of(List<WriteLog.Write> writes, long beforeMicros, long afterMicros, long replacedEarlyMicros) {
    Map<Integer, List<WriteLog.Write>> byRank = new TreeMap<>();
    for (WriteLog.Write write : writes) {
      byRank.computeIfAbsent(write.rank(), r -> new ArrayList<>()).add(write);
    }
    List<long[]> intervals = new ArrayList<>();
    for (List<WriteLog.Write> ofKey : byRank.values()) {
      ofKey.sort(Comparator.comparingLong(WriteLog.Write::writtenMicros));
      for (int i = 0; i < ofKey.size(); i++) {
        long expires = ofKey.get(i).expiresMicros();
        boolean replacedEarly = i + 1 < ofKey.size() && ofKey.get(i + 1).writtenMicros() < expires - replacedEarlyMicros;
        if (!replacedEarly) {
          intervals.add(new long[] {expires - beforeMicros, expires + afterMicros});
        }
      }
    }
    return merged(intervals);
  }

  static ExpiryWindows union(List<ExpiryWindows> windows) {
    List<long[]> intervals = new ArrayList<>();
    for (ExpiryWindows w : windows) {
      for (int i = 0; i < w.starts.length; i++) {
        intervals.add(new long[] {w.starts[i], w.ends[i]});
      }
    }
    return merged(intervals);
  }

  private static ExpiryWindows merged(List<long[]> intervals) {
    intervals.sort(Comparator.comparingLong(interval -> interval[0]));
    List<long[]> merged = new ArrayList<>();
    for (long[] interval : intervals) {
      if (!merged.isEmpty() && interval[0] <= merged.get(merged.size() - 1)[1]) {
        long[] last = merged.get(merged.size() - 1);
        last[1] = Math.max(last[1], interval[1]);
      } else {
        merged.add(interval.clone());
      }
    }
    long[] starts = new long[merged.size()];
    long[] ends = new long[merged.size()];
    for (int i = 0; i < merged.size(); i++) {
      starts[i] = merged.get(i)[0];
      ends[i] = merged.get(i)[1];
    }
    return new ExpiryWindows(starts, ends);
  }

  boolean contains(long micros) {
    int at = Arrays.binarySearch(starts, micros);
    int index = at >= 0 ? at : -at - 2;
    return index >= 0 && micros < ends[index];
  }

  /** How much of [from, to) the windows cover, in microseconds. */
  long covered(long from, long to) {
    long total = 0;
    for (int i = 0; i < starts.length; i++) {
      long start = Math.max(from, starts[i]);
      long end = Math.min(to, ends[i]);
      if (end > start) {
        total += end - start;
      }
    }
    return total;
  }

  int size() {
    return starts.length;
  }
}
