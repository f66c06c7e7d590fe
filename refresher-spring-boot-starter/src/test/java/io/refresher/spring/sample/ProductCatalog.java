package io.refresher.spring.sample;

import org.springframework.cache.annotation.Cacheable;
import org.springframework.stereotype.Service;

@Service
public class ProductCatalog {

  private final ProductDatabase database;

  public ProductCatalog(ProductDatabase database) {
    this.database = database;
  }

  // Reads and counts the Redis key product:{id}. On a miss, one caller across all the
  // application's instances loads it; the others wait for its value.
  @Cacheable(cacheNames = "product", sync = true)
  public Product findProduct(long id) {
    return database.findProduct(id);
  }
}
