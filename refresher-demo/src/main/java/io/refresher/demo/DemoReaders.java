package io.refresher.demo;

import io.refresher.client.RefresherClient;
import io.refresher.embedded.EmbeddedPostgreSql;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;
import org.redisson.api.RBucket;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

/**
 * The demos' simulated application: reader threads at a steady total rate. Most reads go to keys
 * the service keeps, through the client library (a plain {@code GET}, each read counted); one in
 * {@code usualWay.oneIn()} goes to one key cached the usual way (cache-aside: on a miss the reader
 * runs the query itself and sets the key with a TTL), so that the two can be compared.
 *
 * <p>A miss of a kept key counts against the promise only if the key had been found before the
 * read began (not merely before it ended: another reader may find the value just written); before
 * that it is a cold start (the key was not hot yet).
 */
final class DemoReaders implements AutoCloseable {

  /** The key cached the usual way, its query, its TTL, and its share of the reads. */
  record UsualWay(String key, String sql, Duration ttl, int oneIn) {}

  private final RefresherClient client;
  private final RedissonClient redisson;
  private final String dbUrl;
  private final Supplier<List<String>> keys;
  private final UsualWay usualWay;
  private final AtomicBoolean stop = new AtomicBoolean();
  private final AtomicLong reads = new AtomicLong();
  private final AtomicLong hotMisses = new AtomicLong();
  private final AtomicLong coldStartMisses = new AtomicLong();
  private final Map<String, Long> firstFoundAt = new ConcurrentHashMap<>();
  private final AtomicLong usualReads = new AtomicLong();
  private final AtomicLong usualMisses = new AtomicLong();
  private final ExecutorService pool;

  /**
   * Starts the readers.
   *
   * @param keys the kept keys read now (read again before each read: a demo may move its readers)
   */
  DemoReaders(
      RefresherClient client,
      RedissonClient redisson,
      String dbUrl,
      int threads,
      int rate,
      Supplier<List<String>> keys,
      UsualWay usualWay) {
    this.client = client;
    this.redisson = redisson;
    this.dbUrl = dbUrl;
    this.keys = keys;
    this.usualWay = usualWay;
    this.pool =
        Executors.newFixedThreadPool(
            threads,
            runnable -> {
              Thread thread = new Thread(runnable, "demo-reader");
              thread.setDaemon(true);
              return thread;
            });
    long intervalNanos = TimeUnit.SECONDS.toNanos(1) * threads / Math.max(1, rate);
    for (int i = 0; i < threads; i++) {
      pool.execute(() -> readLoop(intervalNanos));
    }
  }

  /** Reads of kept keys. */
  long reads() {
    return reads.get();
  }

  /** Misses of kept keys once they had been found: the misses the service promises away. */
  long hotMisses() {
    return hotMisses.get();
  }

  /** Misses of kept keys before any reader had found them. */
  long coldStartMisses() {
    return coldStartMisses.get();
  }

  long usualReads() {
    return usualReads.get();
  }

  /** Misses of the key cached the usual way: each one a query run by the reader. */
  long usualMisses() {
    return usualMisses.get();
  }

  @Override
  public void close() throws InterruptedException {
    stop.set(true);
    pool.shutdown();
    pool.awaitTermination(5, TimeUnit.SECONDS);
  }

  private void readLoop(long intervalNanos) {
    try (Connection connection = DriverManager.getConnection(dbUrl, EmbeddedPostgreSql.USER, EmbeddedPostgreSql.PASSWORD)) {
      long next = System.nanoTime();
      while (!stop.get()) {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        if (random.nextInt(usualWay.oneIn()) == 0) {
          readTheUsualWay(connection);
        } else {
          readKept(random);
        }
        next += intervalNanos;
        long wait = next - System.nanoTime();
        if (wait > 0) {
          LockSupport.parkNanos(wait);
        }
      }
    } catch (SQLException e) {
      throw new IllegalStateException("demo reader lost its database connection", e);
    }
  }

  private void readKept(ThreadLocalRandom random) {
    List<String> now = keys.get();
    String key = now.get(random.nextInt(now.size()));
    reads.incrementAndGet();
    long startedAt = System.nanoTime();
    if (client.get(key) != null) {
      firstFoundAt.putIfAbsent(key, startedAt);
      return;
    }
    Long foundAt = firstFoundAt.get(key);
    if (foundAt != null && foundAt < startedAt) {
      hotMisses.incrementAndGet();
    } else {
      coldStartMisses.incrementAndGet();
    }
  }

  /** What applications do today without Refresher: on a miss, compute and set. */
  private void readTheUsualWay(Connection connection) throws SQLException {
    usualReads.incrementAndGet();
    RBucket<String> bucket = redisson.getBucket(usualWay.key(), StringCodec.INSTANCE);
    if (bucket.get() != null) {
      return;
    }
    usualMisses.incrementAndGet();
    try (Statement statement = connection.createStatement();
        ResultSet rs = statement.executeQuery(usualWay.sql())) {
      rs.next();
      bucket.set(rs.getString(1), usualWay.ttl());
    }
  }
}
