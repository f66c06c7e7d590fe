package io.refresher.access;

import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * Popularity saved where it survives Redis (PostgreSQL): the counters and scores in Redis die
 * with its data, and the refill after a loss starts from the most popular keys. Methods throw
 * {@code RegistryUnavailableException} when the database cannot be reached.
 */
public interface PopularityArchive {

  /** A key's rate (reads/s) as of when it was saved. */
  record Saved(String key, double rate, Instant sampledAt) {}

  /**
   * Saves these rates (reads/s) by key, replacing the keys' earlier rows, and forgets rows saved
   * before {@code forgetBefore}. Keys not in this snapshot keep their older rows: right after Redis
   * lost its data the snapshot is nearly empty, and must not wipe what the restore needs.
   */
  void save(Map<String, Double> ratesByKey, Instant sampledAt, Instant forgetBefore);

  /** Up to {@code limit} saved keys, highest saved rate first. */
  List<Saved> top(int limit);
}
