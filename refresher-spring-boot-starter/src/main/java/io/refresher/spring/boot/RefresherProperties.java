package io.refresher.spring.boot;

import io.refresher.client.AccessCounter;
import io.refresher.client.RefresherClient;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * {@code refresher.client.*}: the client's options and the caches' TTLs and key layout. Redis
 * itself is configured where the application configures it, {@code spring.data.redis.*}.
 */
@ConfigurationProperties("refresher.client")
public class RefresherProperties {

  /** Whether the starter builds a client and a cache manager at all. */
  private boolean enabled = true;

  /** Between a cache's name and an entry's key: {@code product} + {@code :} + {@code 42}. */
  private String keySeparator = ":";

  /** How long a value an application loads is cached, for caches not named under {@code caches}. */
  private Duration defaultTtl = Duration.ofMinutes(10);

  /** Per cache: {@code refresher.client.caches.product.ttl=5m}. */
  private Map<String, CacheSettings> caches = new LinkedHashMap<>();

  /** How often counted reads are written to Redis. */
  private Duration flushInterval = Duration.ofSeconds(1);

  /** Keys with reads waiting for the next flush, at most; reads of further keys are dropped. */
  private int maxPendingKeys = AccessCounter.DEFAULT_MAX_PENDING_KEYS;

  /** XFetch's eagerness for values the application loaded (1.0 is the paper's). */
  private double beta = 1.0;

  /** How long a loader may hold the cross-instance single-flight lock. */
  private Duration singleFlightLease = RefresherClient.DEFAULT_SINGLE_FLIGHT_LEASE;

  /** How long a caller waits for another instance's load before loading itself. */
  private Duration waitForOtherLoader = RefresherClient.DEFAULT_WAIT_FOR_OTHER_LOADER;

  public static class CacheSettings {
    private Duration ttl;

    public Duration getTtl() {
      return ttl;
    }

    public void setTtl(Duration ttl) {
      this.ttl = ttl;
    }
  }

  public boolean isEnabled() {
    return enabled;
  }

  public void setEnabled(boolean enabled) {
    this.enabled = enabled;
  }

  public String getKeySeparator() {
    return keySeparator;
  }

  public void setKeySeparator(String keySeparator) {
    this.keySeparator = keySeparator;
  }

  public Duration getDefaultTtl() {
    return defaultTtl;
  }

  public void setDefaultTtl(Duration defaultTtl) {
    this.defaultTtl = defaultTtl;
  }

  public Map<String, CacheSettings> getCaches() {
    return caches;
  }

  public void setCaches(Map<String, CacheSettings> caches) {
    this.caches = caches;
  }

  public Duration getFlushInterval() {
    return flushInterval;
  }

  public void setFlushInterval(Duration flushInterval) {
    this.flushInterval = flushInterval;
  }

  public int getMaxPendingKeys() {
    return maxPendingKeys;
  }

  public void setMaxPendingKeys(int maxPendingKeys) {
    this.maxPendingKeys = maxPendingKeys;
  }

  public double getBeta() {
    return beta;
  }

  public void setBeta(double beta) {
    this.beta = beta;
  }

  public Duration getSingleFlightLease() {
    return singleFlightLease;
  }

  public void setSingleFlightLease(Duration singleFlightLease) {
    this.singleFlightLease = singleFlightLease;
  }

  public Duration getWaitForOtherLoader() {
    return waitForOtherLoader;
  }

  public void setWaitForOtherLoader(Duration waitForOtherLoader) {
    this.waitForOtherLoader = waitForOtherLoader;
  }
}
