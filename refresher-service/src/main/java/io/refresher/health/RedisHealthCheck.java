package io.refresher.health;

import com.codahale.metrics.health.HealthCheck;
import io.refresher.redis.RedisEpochGuard;
import io.refresher.redis.RedisEvictionPolicy;
import io.refresher.redis.RedisReachability;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

/** Ready only while Redis answers. Never part of liveness: a Redis blip must not restart pods. */
public final class RedisHealthCheck extends HealthCheck {

  private final RedissonClient redisson;
  private final String redactedUrl;
  private final RedisEvictionPolicy evictionPolicy;
  private final RedisReachability reachability;

  /**
   * @param reachability what the epoch guard's probes found: while Redis is known to be away the
   *     check fails at once instead of waiting out a command timeout, so readiness drops within
   *     one check interval of the guard noticing
   */
  public RedisHealthCheck(
      RedissonClient redisson, String redactedUrl, RedisEvictionPolicy evictionPolicy, RedisReachability reachability) {
    this.reachability = reachability;
    this.redisson = redisson;
    this.redactedUrl = redactedUrl;
    this.evictionPolicy = evictionPolicy;
  }

  @Override
  protected Result check() {
    if (!reachability.reachable()) {
      return Result.unhealthy("Redis at " + redactedUrl + " unavailable (the epoch guard's probes get no answer)");
    }
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
