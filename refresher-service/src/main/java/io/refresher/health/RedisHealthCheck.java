package io.refresher.health;

import com.codahale.metrics.health.HealthCheck;
import io.refresher.cache.RedisEpochGuard;
import io.refresher.cache.RedisEvictionPolicy;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

/** Ready only while Redis answers. Never part of liveness: a Redis blip must not restart pods. */
public final class RedisHealthCheck extends HealthCheck {

  private final RedissonClient redisson;
  private final String redactedUrl;
  private final RedisEvictionPolicy evictionPolicy;

  public RedisHealthCheck(RedissonClient redisson, String redactedUrl, RedisEvictionPolicy evictionPolicy) {
    this.redisson = redisson;
    this.redactedUrl = redactedUrl;
    this.evictionPolicy = evictionPolicy;
  }

  @Override
  protected Result check() {
    try {
      boolean marker = redisson.getBucket(RedisEpochGuard.MARKER, StringCodec.INSTANCE).isExists();
      // Shown, not judged: an allkeys-* policy is supported with a warning (see RedisEvictionPolicy).
      return Result.builder()
          .healthy()
          .withDetail("url", redactedUrl)
          .withDetail("epochMarker", marker)
          .withDetail("maxmemoryPolicy", String.join(",", evictionPolicy.policies()))
          .withDetail("evictionPolicySafety", evictionPolicy.safety().name())
          .build();
    } catch (RuntimeException e) {
      return Result.unhealthy("Redis at " + redactedUrl + " unavailable: " + e.getMessage());
    }
  }
}
