package io.refresher.access;

import java.time.Instant;
import java.util.Map;

/**
 * Popularity saved where it survives Redis (PostgreSQL): the counters and scores in Redis die
 * with its data, and the refill after a loss starts from the most popular keys. Methods throw
 * {@code RegistryUnavailableException} when the database cannot be reached.
 */
public interface PopularityArchive {

  /** Replaces the saved popularity with these rates (reads/s) by key. */
  void save(Map<String, Double> ratesByKey, Instant sampledAt);

  /** Up to {@code limit} saved keys with their rates, most popular first. */
  Map<String, Double> top(int limit);
}
