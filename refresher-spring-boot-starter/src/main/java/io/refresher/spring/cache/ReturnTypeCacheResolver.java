package io.refresher.spring.cache;

import java.lang.reflect.Method;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import org.springframework.cache.Cache;
import org.springframework.cache.interceptor.CacheOperationInvocationContext;
import org.springframework.cache.interceptor.CacheResolver;
import tools.jackson.databind.JavaType;

/**
 * Hands each cached method the Refresher caches it names, typed by what the method returns, so
 * that a JSON value read back is a {@code Product} for {@code Product findProduct(long id)}, not a
 * map. An {@code Optional<T>} method caches its {@code T}, as Spring's caching does.
 */
public final class ReturnTypeCacheResolver implements CacheResolver {

  private final RefresherCacheManager caches;

  public ReturnTypeCacheResolver(RefresherCacheManager caches) {
    this.caches = caches;
  }

  @Override
  public Collection<? extends Cache> resolveCaches(CacheOperationInvocationContext<?> context) {
    JavaType type = caches.json().type(cachedType(context.getMethod()));
    List<Cache> resolved =
        context.getOperation().getCacheNames().stream()
            .map(name -> (Cache) caches.getCache(name).typedAs(type))
            .toList();
    return resolved;
  }

  static Type cachedType(Method method) {
    Type returned = method.getGenericReturnType();
    if (returned instanceof ParameterizedType parameterized && parameterized.getRawType() == Optional.class) {
      return parameterized.getActualTypeArguments()[0];
    }
    if (returned == void.class || returned == Void.class) {
      return Object.class;
    }
    return returned;
  }
}
