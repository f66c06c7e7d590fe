package io.refresher.spring.cache;

import io.refresher.client.RefresherClient;
import java.time.Duration;
import java.util.Collection;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.Function;
import org.springframework.cache.CacheManager;

/**
 * The caches of one {@link RefresherClient}, made on first use (as {@code @Cacheable} names
 * them), each with its TTL: its own or the default.
 */
public final class RefresherCacheManager implements CacheManager {

  private final RefresherClient client;
  private final CacheKeyFormat keys;
  private final JsonValues json;
  private final Function<String, Duration> ttls;
  private final ConcurrentMap<String, RefresherCache> caches = new ConcurrentHashMap<>();

  public RefresherCacheManager(RefresherClient client, CacheKeyFormat keys, JsonValues json, Function<String, Duration> ttls) {
    this.client = client;
    this.keys = keys;
    this.json = json;
    this.ttls = ttls;
  }

  /** A manager whose caches live {@code ttls.get(name)}, or {@code defaultTtl} when not named. */
  public static RefresherCacheManager of(
      RefresherClient client, CacheKeyFormat keys, JsonValues json, Duration defaultTtl, Map<String, Duration> ttls) {
    Map<String, Duration> named = Map.copyOf(ttls);
    return new RefresherCacheManager(client, keys, json, name -> named.getOrDefault(name, defaultTtl));
  }

  @Override
  public RefresherCache getCache(String name) {
    return caches.computeIfAbsent(
        name, n -> new RefresherCache(n, client, keys, json, ttls.apply(n), json.type(Object.class)));
  }

  @Override
  public Collection<String> getCacheNames() {
    return Set.copyOf(caches.keySet());
  }

  public JsonValues json() {
    return json;
  }
}
