package io.refresher.spring.sample;

import io.refresher.client.RefresherClient;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/** What the tests drive the sample through, from another process. */
@RestController
public class SampleEndpoints {

  private final ProductCatalog catalog;
  private final ProductDatabase database;
  private final RefresherClient client;

  public SampleEndpoints(ProductCatalog catalog, ProductDatabase database, RefresherClient client) {
    this.catalog = catalog;
    this.database = database;
    this.client = client;
  }

  @GetMapping("/products/{id}")
  public Product product(@PathVariable long id) {
    return catalog.findProduct(id);
  }

  @GetMapping("/products/{id}/queries")
  public Map<String, Long> queries(@PathVariable long id) {
    return Map.of("queries", database.queriesOf(id));
  }

  /**
   * Calls {@code findProduct(id)} {@code perSecond} times a second for {@code seconds}, paced in
   * this process, and says how many of those calls found no value in Redis.
   */
  @PostMapping("/drive")
  public Map<String, Long> drive(
      @RequestParam long id, @RequestParam int perSecond, @RequestParam double seconds) {
    long missesBefore = client.stats().misses();
    long queriesBefore = database.queriesOf(id);
    long calls = Math.round(perSecond * seconds);
    long interval = Duration.ofSeconds(1).toNanos() / perSecond;
    long start = System.nanoTime();
    for (long i = 0; i < calls; i++) {
      long due = start + i * interval;
      long wait = due - System.nanoTime();
      if (wait > 0) {
        LockSupport.parkNanos(wait);
      }
      catalog.findProduct(id);
    }
    return Map.of(
        "calls", calls,
        "misses", client.stats().misses() - missesBefore,
        "queries", database.queriesOf(id) - queriesBefore);
  }
}
