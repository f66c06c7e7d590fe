package io.refresher.health;

import com.codahale.metrics.health.HealthCheck;
import io.refresher.cache.RedisEpochGuard;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

/** Ready only while Redis answers. Never part of liveness: a Redis blip must not restart pods. */
public final class RedisHealthCheck extends HealthCheck {

  private final RedissonClient redisson;
  private final String redactedUrl;

  public RedisHealthCheck(RedissonClient redisson, String redactedUrl) {
    this.redisson = redisson;
    this.redactedUrl = redactedUrl;
  }

  @Override
  protected Result check() {
    try {
      boolean marker = redisson.getBucket(RedisEpochGuard.MARKER, StringCodec.INSTANCE).isExists();
      return Result.builder().healthy().withDetail("url", redactedUrl).withDetail("epochMarker", marker).build();
    } catch (RuntimeException e) {
      return Result.unhealthy("Redis at " + redactedUrl + " unavailable: " + e.getMessage());
    }
  }
}
