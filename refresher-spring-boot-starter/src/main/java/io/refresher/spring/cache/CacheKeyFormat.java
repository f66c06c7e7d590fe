package io.refresher.spring.cache;

import org.springframework.cache.interceptor.SimpleKey;

/**
 * How a cache's name and an entry's key become a Redis key. The default, {@code
 * <cache><separator><key>}, lines {@code @Cacheable("product")} on {@code findProduct(42)} up with
 * the service's template {@code product:{id}}: the Redis key is {@code product:42}. Declare a bean
 * of this type for any other layout.
 */
@FunctionalInterface
public interface CacheKeyFormat {

  String redisKey(String cacheName, Object key);

  /**
   * {@code <cache><separator><key>}. A method of several parameters gives a {@link SimpleKey},
   * which has no layout a template could name: such methods name their key ({@code
   * key = "#country + ':' + #id"}), and an unnamed one is refused rather than cached under a key
   * nobody can register.
   */
  static CacheKeyFormat joinedBy(String separator) {
    return (cacheName, key) -> {
      if (key instanceof SimpleKey) {
        throw new IllegalArgumentException(
            "cache '" + cacheName + "': a key of several parameters (" + key + ") has no Redis key layout;"
                + " name the key in the annotation, e.g. key = \"#a + ':' + #b\"");
      }
      return cacheName + separator + key;
    };
  }
}
