package io.refresher.spring.sample;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Component;

/**
 * The sample's stand-in for a database: a query that takes {@code sample.load-time}, and a count
 * of queries per product, which the tests read to see how often the loader ran.
 */
@Component
public class ProductDatabase {

  private final Duration loadTime;
  private final Map<Long, AtomicLong> queries = new ConcurrentHashMap<>();

  public ProductDatabase(@Value("${sample.load-time:200ms}") Duration loadTime) {
    this.loadTime = loadTime;
  }

  public Product findProduct(long id) {
    queries.computeIfAbsent(id, any -> new AtomicLong()).incrementAndGet();
    try {
      Thread.sleep(loadTime.toMillis()); // the query's own time, not a wait for a condition
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return new Product(id, "Product " + id, BigDecimal.valueOf(id, 2), List.of("sample"));
  }

  public long queriesOf(long id) {
    AtomicLong count = queries.get(id);
    return count == null ? 0 : count.get();
  }
}
