package io.refresher.spring.boot;

import io.refresher.client.RefresherClient;
import io.refresher.client.driver.RedisDriver;
import io.refresher.spring.cache.CacheKeyFormat;
import io.refresher.spring.cache.JsonValues;
import io.refresher.spring.cache.RefresherCacheManager;
import io.refresher.spring.cache.ReturnTypeCacheResolver;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.commons.logging.LogFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.cache.CacheManager;
import org.springframework.cache.annotation.CachingConfigurer;
import org.springframework.cache.interceptor.CacheErrorHandler;
import org.springframework.cache.interceptor.CacheResolver;
import org.springframework.cache.interceptor.LoggingCacheErrorHandler;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import tools.jackson.databind.json.JsonMapper;

/**
 * A {@link RefresherClient} on the application's own Redis connection factory ({@code
 * spring.data.redis.*}, Lettuce or Jedis), a {@link RefresherCacheManager} for Spring's caching
 * annotations, the client's meters and its health. Each bean backs off when the application
 * declares its own.
 */
@AutoConfiguration(
    afterName = {
      "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration",
      "org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration"
    },
    beforeName = "org.springframework.boot.cache.autoconfigure.CacheAutoConfiguration")
@ConditionalOnClass({RefresherClient.class, RedisConnectionFactory.class})
@ConditionalOnBean(RedisConnectionFactory.class)
@ConditionalOnProperty(prefix = "refresher.client", name = "enabled", matchIfMissing = true)
@EnableConfigurationProperties(RefresherProperties.class)
public class RefresherAutoConfiguration {

  @Bean
  @ConditionalOnMissingBean
  RedisDriver refresherRedisDriver(RedisConnectionFactory factory) {
    if (ClassPresence.LETTUCE && LettuceDrivers.handles(factory)) {
      return new ConnectOnFirstUse(() -> LettuceDrivers.of(factory));
    }
    if (ClassPresence.JEDIS && JedisDrivers.handles(factory)) {
      return new ConnectOnFirstUse(() -> JedisDrivers.of(factory));
    }
    throw new IllegalStateException(
        "Refresher's client runs on a LettuceConnectionFactory or a JedisConnectionFactory, not on "
            + factory.getClass().getName() + "; declare a RedisDriver bean, or set refresher.client.enabled=false");
  }

  @Bean(destroyMethod = "close")
  @ConditionalOnMissingBean
  RefresherClient refresherClient(RedisDriver driver, RefresherProperties properties) {
    return RefresherClient.builder(driver)
        .flushInterval(properties.getFlushInterval())
        .maxPendingKeys(properties.getMaxPendingKeys())
        .beta(properties.getBeta())
        .singleFlightLease(properties.getSingleFlightLease())
        .waitForOtherLoader(properties.getWaitForOtherLoader())
        .build();
  }

  @Bean
  @ConditionalOnMissingBean
  CacheKeyFormat refresherCacheKeyFormat(RefresherProperties properties) {
    return CacheKeyFormat.joinedBy(properties.getKeySeparator());
  }

  @Bean
  @ConditionalOnMissingBean(CacheManager.class)
  RefresherCacheManager cacheManager(
      RefresherClient client, CacheKeyFormat keys, ObjectProvider<JsonMapper> mappers, RefresherProperties properties) {
    Map<String, Duration> ttls = new LinkedHashMap<>();
    properties.getCaches().forEach((name, settings) -> {
      if (settings.getTtl() != null) {
        ttls.put(name, settings.getTtl());
      }
    });
    JsonMapper mapper = mappers.getIfAvailable(() -> JsonMapper.builder().build());
    return RefresherCacheManager.of(client, keys, new JsonValues(mapper), properties.getDefaultTtl(), ttls);
  }

  /**
   * Typed caches for the annotations, and a cache failure (Redis down) logged rather than thrown:
   * the method then runs as if nothing were cached, as {@code get(key, ttl, loader)} does.
   */
  @Bean
  @ConditionalOnMissingBean(CachingConfigurer.class)
  CachingConfigurer refresherCachingConfigurer(ObjectProvider<RefresherCacheManager> caches) {
    return new CachingConfigurer() {
      @Override
      public CacheResolver cacheResolver() {
        RefresherCacheManager manager = caches.getIfAvailable();
        return manager == null ? null : new ReturnTypeCacheResolver(manager);
      }

      @Override
      public CacheErrorHandler errorHandler() {
        return new LoggingCacheErrorHandler(LogFactory.getLog(RefresherCacheManager.class), false);
      }
    };
  }

  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = "io.micrometer.core.instrument.binder.MeterBinder")
  static class Metrics {
    @Bean
    @ConditionalOnMissingBean
    RefresherClientMetrics refresherClientMetrics(RefresherClient client) {
      return new RefresherClientMetrics(client);
    }
  }

  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = "org.springframework.boot.health.contributor.HealthIndicator")
  static class HealthCheck {
    @Bean
    @ConditionalOnMissingBean(name = "refresherHealthIndicator")
    RefresherHealthIndicator refresherHealthIndicator(RefresherClient client) {
      return new RefresherHealthIndicator(client);
    }
  }

  /** Which client libraries the application brought: their classes are touched only if so. */
  private static final class ClassPresence {
    static final boolean LETTUCE = present("io.lettuce.core.RedisClient") && present("io.refresher.client.lettuce.LettuceDriver");
    static final boolean JEDIS = present("redis.clients.jedis.Jedis") && present("io.refresher.client.jedis.JedisDriver");

    private static boolean present(String name) {
      return org.springframework.util.ClassUtils.isPresent(name, RefresherAutoConfiguration.class.getClassLoader());
    }
  }
}
