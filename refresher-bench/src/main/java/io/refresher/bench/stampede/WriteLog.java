package io.refresher.bench.stampede;

import java.util.ArrayList;
import java.util.List;

/**
 * The values a strategy wrote with a TTL, and when each would expire: the moments around which
 * the report's expiry windows lie. (For Refresher the writes are the service's executions.)
 */
final class WriteLog {

  /** One value written at {@code writtenMicros} that expires at {@code expiresMicros} (wall clock). */
  record Write(int rank, long writtenMicros, long expiresMicros) {}

  private final List<Write> writes = new ArrayList<>();

  synchronized void add(int rank, long writtenMicros, long expiresMicros) {
    writes.add(new Write(rank, writtenMicros, expiresMicros));
  }

  /** A write made now with {@code ttlMillis}. */
  void addNow(int rank, long ttlMillis) {
    long now = nowMicros();
    add(rank, now, now + ttlMillis * 1_000);
  }

  synchronized List<Write> writes() {
    return new ArrayList<>(writes);
  }

  static long nowMicros() {
    java.time.Instant now = java.time.Instant.now();
    return now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000;
  }
}
