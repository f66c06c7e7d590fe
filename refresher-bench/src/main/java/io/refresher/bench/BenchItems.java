package io.refresher.bench;

import io.refresher.embedded.EmbeddedPostgreSql;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;

/**
 * The benchmark's source data and bulk registrations: the table {@code bench_item} that {@code
 * bench.yml}'s source {@code item} reads ({@value #SOURCE_SQL}), and registrations of keys {@code
 * item:<id>} written straight into the registry with SQL (for sizes the admin API would take
 * minutes to fill).
 */
public final class BenchItems {

  /** The source {@code item} of {@code bench.yml}. */
  static final String SOURCE_SQL = "SELECT v AS bench_item_query FROM bench_item WHERE id = :id";

  /** The same query with a positional parameter, as the service's loader prepares it. */
  static final String QUERY = "SELECT v AS bench_item_query FROM bench_item WHERE id = ?";

  private BenchItems() {}

  /** Creates {@code bench_item} with rows {@code 1..count} ({@code v = 'item-<id>'}) and analyses it. */
  public static void create(String jdbcUrl, long count) throws SQLException {
    try (Connection db = connect(jdbcUrl);
        Statement sql = db.createStatement()) {
      sql.execute("CREATE TABLE IF NOT EXISTS bench_item (id bigint PRIMARY KEY, v text NOT NULL)");
      sql.execute(
          "INSERT INTO bench_item SELECT i, 'item-' || i FROM generate_series(1, " + count + ") i"
              + " ON CONFLICT (id) DO NOTHING");
      sql.execute("ANALYZE bench_item");
    }
  }

  /** The value the source returns for an id. */
  static String value(long id) {
    return "item-" + id;
  }

  /** The key the benchmark registers for an id. */
  static String key(long id) {
    return "item:" + id;
  }

  /**
   * Registers keys {@code item:<from>..item:<from+count-1>} (source {@code item}, parameter the id)
   * with SQL, as the admin API would store them, without computing their values: the service's
   * schema must exist (it is migrated at the service's first start).
   *
   * @param createdAgo how long ago they were registered (a {@code hot} key is in its first grace for
   *     {@code access.coldAfter} after that)
   */
  public static void register(String jdbcUrl, long from, long count, Duration ttl, String policy, Duration createdAgo)
      throws SQLException {
    register(jdbcUrl, "item:", from, count, ttl, policy, createdAgo);
  }

  /** As {@link #register(String, long, long, Duration, String, Duration)}, keys {@code <prefix><id>}. */
  static void register(
      String jdbcUrl, String keyPrefix, long from, long count, Duration ttl, String policy, Duration createdAgo)
      throws SQLException {
    register(jdbcUrl, keyPrefix, "item", from, count, ttl, policy, createdAgo);
  }

  /** As {@link #register(String, String, long, long, Duration, String, Duration)}, of the given source. */
  public static void register(
      String jdbcUrl, String keyPrefix, String source, long from, long count, Duration ttl, String policy, Duration createdAgo)
      throws SQLException {
    if (!source.matches("[a-z-]+")) {
      throw new IllegalArgumentException("source " + source);
    }
    if (!keyPrefix.matches("[a-z:]+")) {
      throw new IllegalArgumentException("key prefix " + keyPrefix);
    }
    try (Connection db = connect(jdbcUrl);
        Statement sql = db.createStatement()) {
      sql.execute(
          "INSERT INTO refresher.refresher_key (key, source, params, ttl_ms, policy, created_at, updated_at) "
              + "SELECT '" + keyPrefix + "' || i, '" + source + "', jsonb_build_object('id', i), "
              + ttl.toMillis()
              + ", '"
              + policy
              + "', now() - interval '"
              + createdAgo.toMillis()
              + " milliseconds', now() - interval '"
              + createdAgo.toMillis()
              + " milliseconds' FROM generate_series("
              + from
              + ", "
              + (from + count - 1)
              + ") i");
    }
  }

  /** Registrations in the registry. */
  static long registered(String jdbcUrl) throws SQLException {
    try (Connection db = connect(jdbcUrl);
        Statement sql = db.createStatement();
        ResultSet rs = sql.executeQuery("SELECT count(*) FROM refresher.refresher_key")) {
      rs.next();
      return rs.getLong(1);
    }
  }

  public static Connection connect(String jdbcUrl) throws SQLException {
    return DriverManager.getConnection(jdbcUrl, EmbeddedPostgreSql.USER, EmbeddedPostgreSql.PASSWORD);
  }
}
