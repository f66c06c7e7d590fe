package io.refresher.spring.cache;

import io.refresher.client.LoaderException;
import io.refresher.client.RefresherClient;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import org.springframework.cache.Cache;
import org.springframework.cache.support.SimpleValueWrapper;
import tools.jackson.databind.JavaType;

/**
 * A Spring {@link Cache} whose entries are Redis keys the Refresher client reads and counts, so
 * that the service learns which are hot and keeps those from expiring.
 *
 * <ul>
 *   <li>{@code get} reads through {@link RefresherClient#get(String)}: counted.
 *   <li>{@code get(key, valueLoader)} ({@code @Cacheable(sync = true)}) loads through {@link
 *       RefresherClient#get(String, Duration, io.refresher.client.Loader)}: one loader across all
 *       instances of the application, XFetch's early recomputation, and the loader alone when Redis
 *       is down.
 *   <li>{@code put} writes under the client's write rule: a fresh value the service keeps is not
 *       overwritten by an application's.
 *   <li>{@code evict} deletes the value; {@code clear} is refused (see {@link #clear()}).
 * </ul>
 *
 * <p>Values are JSON text. A view {@link #typedAs typed} by the cached method's return type reads
 * them back into that type; the untyped cache reads JSON objects as maps.
 */
public final class RefresherCache implements Cache {

  private final String name;
  private final RefresherClient client;
  private final CacheKeyFormat keys;
  private final JsonValues json;
  private final Duration ttl;
  private final JavaType valueType;
  private final ConcurrentMap<JavaType, RefresherCache> views = new ConcurrentHashMap<>();

  RefresherCache(String name, RefresherClient client, CacheKeyFormat keys, JsonValues json, Duration ttl, JavaType valueType) {
    this.name = name;
    this.client = client;
    this.keys = keys;
    this.json = json;
    this.ttl = ttl;
    this.valueType = valueType;
  }

  /**
   * This cache, reading values back as {@code type}. A cached method asks on every call, so each
   * type's view is made once.
   */
  public RefresherCache typedAs(JavaType type) {
    if (type.equals(valueType)) {
      return this;
    }
    return views.computeIfAbsent(type, t -> new RefresherCache(name, client, keys, json, ttl, t));
  }

  public Duration ttl() {
    return ttl;
  }

  /** The Redis key of {@code key} in this cache. */
  public String redisKey(Object key) {
    return keys.redisKey(name, Objects.requireNonNull(key, "key"));
  }

  @Override
  public String getName() {
    return name;
  }

  @Override
  public RefresherClient getNativeCache() {
    return client;
  }

  @Override
  public ValueWrapper get(Object key) {
    RefresherClient.Read read = client.read(redisKey(key));
    if (read.knownAbsent()) {
      // the service's not-found marker: a cached "none", not a miss (the method is not run)
      return new SimpleValueWrapper(null);
    }
    return read.value() == null ? null : new SimpleValueWrapper(json.read(read.value(), valueType));
  }

  @Override
  public <T> T get(Object key, Class<T> type) {
    String text = client.get(redisKey(key));
    if (text == null) {
      return null;
    }
    Object value = json.read(text, json.type(type));
    if (type != null && !type.isInstance(value)) {
      throw new IllegalStateException(
          "cache '" + name + "': the value of " + redisKey(key) + " is not a " + type.getName());
    }
    @SuppressWarnings("unchecked")
    T typed = (T) value;
    return typed;
  }

  /**
   * The value, loaded once across all instances when absent. The caller that ran the loader gets
   * the loader's own object; the others get it back from its JSON.
   */
  @Override
  public <T> T get(Object key, Callable<T> valueLoader) {
    LoadedHere<T> here = new LoadedHere<>();
    String text;
    try {
      text =
          client.get(
              redisKey(key),
              ttl,
              () -> {
                T value = valueLoader.call();
                here.value = value;
                here.loaded = true;
                return value == null ? null : json.write(value);
              });
    } catch (LoaderException e) {
      throw new ValueRetrievalException(key, valueLoader, e.getCause());
    }
    if (here.loaded) {
      return here.value;
    }
    @SuppressWarnings("unchecked")
    T read = text == null ? null : (T) json.read(text, valueType);
    return read;
  }

  /** A null is not cached: the next read loads again. */
  @Override
  public void put(Object key, Object value) {
    if (value != null) {
      client.put(redisKey(key), json.write(value), ttl, Duration.ZERO);
    }
  }

  @Override
  public void evict(Object key) {
    client.evict(redisKey(key));
  }

  @Override
  public boolean evictIfPresent(Object key) {
    return client.evict(redisKey(key));
  }

  /**
   * Refused: the cache's keys live among the application's and the service's other keys, and
   * finding them means a scan of the whole keyspace (every node of a cluster). Evict keys one by
   * one, or let their TTL end them.
   */
  @Override
  public void clear() {
    throw new UnsupportedOperationException(
        "cache '" + name + "': clear() is not supported by a Refresher cache (it would scan the whole"
            + " keyspace); evict keys one by one");
  }

  /** The loader's own result, for the caller that ran it. */
  private static final class LoadedHere<T> {
    private T value;
    private boolean loaded;
  }
}
