package io.refresher.config;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Checks at start that what one refresh runs under its leases fits in them. The key's lock and
 * the datasource's concurrency slot are both leased for {@code refresh.lockLease}, from before the
 * rate wait; neither is extended while the source runs. A refresh that outlives them runs on
 * unfenced: another replica may take the key and run the same source, and the datasource's
 * {@code maxConcurrent} no longer holds (the slot was given to the next query).
 *
 * <p>A source's worst case under the lease, each part at its bound:
 *
 * <ul>
 *   <li>the rate wait, up to its datasource's (or endpoint's) {@code maxWait}, when that has a
 *       {@code maxQueriesPerSecond} (the wait for a concurrency slot comes before the leases);
 *   <li>a SQL source: {@code sql} within the source's {@code timeout}; with a {@code versionSql},
 *       that first (within the same timeout), and when it said "unchanged" but the value was gone
 *       when its TTL was to be extended, the second computation runs {@code versionSql} again
 *       before {@code sql} (so three timeouts in all);
 *   <li>an HTTP source: its request within the source's {@code timeout} (which bounds connect,
 *       response and body together), and a second request after a {@code 304} whose value was gone.
 * </ul>
 *
 * The sum must be below the lease. What else runs under it (the lock, the fenced write: Redis
 * round trips) is not counted: keep a margin.
 */
final class SourceLeaseCheck {

  private SourceLeaseCheck() {}

  /** One source whose worst case does not fit: the path to report and the rule broken. */
  record Violation(String path, String rule) {}

  /** One part of a worst case: what it is and its bound. */
  record Part(String what, Duration bound) {}

  static List<Violation> check(RefresherConfiguration config) {
    List<Violation> violations = new ArrayList<>();
    if (config.getRefresh() == null || config.getRefresh().getLockLease() == null || config.getSources() == null) {
      return violations;
    }
    Duration lease = config.getRefresh().getLockLease().toJavaDuration();
    for (Map.Entry<String, SourceFactory> entry : config.getSources().entrySet()) {
      SourceFactory source = entry.getValue();
      if (source == null || source.getTimeout() == null) {
        continue;
      }
      List<Part> parts = worstCase(config, source);
      Duration sum = parts.stream().map(Part::bound).reduce(Duration.ZERO, Duration::plus);
      if (sum.compareTo(lease) >= 0) {
        violations.add(
            new Violation(
                "sources." + entry.getKey() + ".timeout",
                "does not fit under refresh.lockLease (" + text(lease) + "): the worst case of one refresh is "
                    + describe(parts) + " = " + text(sum) + ", and the key's lock and the concurrency slot end at "
                    + text(lease) + "; lower the timeout or maxWait, or raise refresh.lockLease"));
      }
    }
    return violations;
  }

  /** The parts of the source's worst case under the lease, in the order they run. */
  static List<Part> worstCase(RefresherConfiguration config, SourceFactory source) {
    List<Part> parts = new ArrayList<>();
    Duration timeout = source.getTimeout().toJavaDuration();
    if (source.getHttp() != null) {
      String endpoint = source.getHttp().getEndpoint();
      HttpEndpointFactory bound = endpoint == null || config.getHttpEndpoints() == null ? null : config.getHttpEndpoints().get(endpoint);
      if (bound != null && bound.getMaxQueriesPerSecond() > 0 && bound.getMaxWait() != null) {
        parts.add(new Part("rate wait " + text(bound.getMaxWait().toJavaDuration()) + " (httpEndpoints." + endpoint + ".maxWait)", bound.getMaxWait().toJavaDuration()));
      }
      parts.add(new Part("request " + text(timeout), timeout));
      parts.add(new Part("request again after a 304 whose value was gone " + text(timeout), timeout));
      return parts;
    }
    String datasource = source.effectiveDatasource();
    Optional<DatabaseFactory> pool = poolOf(config, datasource);
    if (pool.isPresent() && pool.get().getMaxQueriesPerSecond() > 0 && pool.get().getMaxWait() != null) {
      String where = SourceFactory.DEFAULT_DATASOURCE.equals(datasource) ? "database" : "datasources." + datasource;
      parts.add(new Part("rate wait " + text(pool.get().getMaxWait().toJavaDuration()) + " (" + where + ".maxWait)", pool.get().getMaxWait().toJavaDuration()));
    }
    boolean revalidates = source.getVersionSql() != null && !source.getVersionSql().isBlank();
    if (revalidates) {
      parts.add(new Part("versionSql " + text(timeout), timeout));
      parts.add(new Part("versionSql again after an 'unchanged' whose value was gone " + text(timeout), timeout));
    }
    parts.add(new Part("sql " + text(timeout), timeout));
    return parts;
  }

  private static Optional<DatabaseFactory> poolOf(RefresherConfiguration config, String datasource) {
    if (SourceFactory.DEFAULT_DATASOURCE.equals(datasource)) {
      return Optional.ofNullable(config.getDatabase());
    }
    return Optional.ofNullable(config.getDatasources() == null ? null : config.getDatasources().get(datasource));
  }

  private static String describe(List<Part> parts) {
    return String.join(" + ", parts.stream().map(Part::what).toList());
  }

  private static String text(Duration duration) {
    long millis = duration.toMillis();
    return millis % 1000 == 0 ? millis / 1000 + " s" : millis + " ms";
  }
}
