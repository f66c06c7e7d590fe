package io.refresher.redis;

import java.util.ArrayList;
import java.util.Collection;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;
import org.redisson.api.RedissonClient;
import org.redisson.api.redisnode.RedisNode;
import org.redisson.api.redisnode.RedisNodes;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Redis's {@code maxmemory-policy}, read from every master, and what it means for the service.
 *
 * <p>The service keeps bookkeeping without a TTL (due index, hot set, epoch marker, popularity
 * scores). Under {@code noeviction} and the {@code volatile-*} policies Redis never evicts those:
 * only values (which have a TTL) can go, and a hot value evicted early is computed again when it
 * comes due. Under the {@code allkeys-*} policies any of it can go: the service then survives
 * (a lost epoch marker reads as a data loss and starts a refill; a lost token counter is repaired
 * by the write script; a lost due entry comes back with the reconciliation sweep) but keys may be
 * refreshed late or all at once. So those are supported with a warning, logged at start and
 * whenever the policy changes, and shown by the metric {@code refresher.redis.eviction-policy-safe}.
 *
 * <p>{@code CONFIG GET} is refused on some managed offerings; {@code INFO memory} has the policy
 * too and is tried next.
 */
public final class RedisEvictionPolicy {

  private static final Logger LOG = LoggerFactory.getLogger(RedisEvictionPolicy.class);

  /** How often the policy is read again at most; it rarely changes. */
  private static final long REFRESH_MILLIS = 60_000;

  /** What a policy means for the service's own keys. */
  public enum Safety {
    /** Redis never evicts keys without a TTL. */
    SAFE(1),
    /** Redis may evict the service's bookkeeping; supported, with degraded refresh timing. */
    EVICTS_BOOKKEEPING(0),
    /** The policy could not be read. */
    UNKNOWN(-1);

    private final int gauge;

    Safety(int gauge) {
      this.gauge = gauge;
    }

    public int gauge() {
      return gauge;
    }
  }

  private final Supplier<List<String>> policies;
  private volatile List<String> lastPolicies;
  private volatile long readAtMillis = Long.MIN_VALUE;

  private final InstantSource clock;

  RedisEvictionPolicy(Supplier<List<String>> policies, InstantSource clock) {
    this.policies = policies;
    this.clock = clock;
  }

  /**
   * Reads the policy of the single Redis or of every cluster master.
   *
   * @param clock says when the last reading is a minute old
   */
  public static RedisEvictionPolicy of(RedissonClient redisson, boolean cluster, InstantSource clock) {
    return new RedisEvictionPolicy(
        () -> {
          Collection<? extends RedisNode> masters =
              cluster
                  ? redisson.getRedisNodes(RedisNodes.CLUSTER).getMasters()
                  : List.of(redisson.getRedisNodes(RedisNodes.SINGLE).getInstance());
          List<String> read = new ArrayList<>();
          for (RedisNode master : masters) {
            read.add(policyOf(master));
          }
          return read;
        },
        clock);
  }

  /** The meaning of one policy name. */
  public static Safety safetyOf(String policy) {
    if (policy == null) {
      return Safety.UNKNOWN;
    }
    if (policy.equals("noeviction") || policy.startsWith("volatile-")) {
      return Safety.SAFE;
    }
    if (policy.startsWith("allkeys-")) {
      return Safety.EVICTS_BOOKKEEPING;
    }
    return Safety.UNKNOWN;
  }

  /** The policies as last read (one per master; empty when not readable). */
  public List<String> policies() {
    refreshIfOld();
    List<String> read = lastPolicies;
    return read == null ? List.of() : read;
  }

  /** The least safe of the masters' policies. */
  public Safety safety() {
    List<String> read = policies();
    if (read.isEmpty()) {
      return Safety.UNKNOWN;
    }
    Safety worst = Safety.SAFE;
    for (String policy : read) {
      Safety safety = safetyOf(policy);
      if (safety == Safety.EVICTS_BOOKKEEPING) {
        return safety;
      }
      if (safety == Safety.UNKNOWN) {
        worst = safety;
      }
    }
    return worst;
  }

  /** Reads the policy now and logs what it means; never throws. */
  public Safety check() {
    readAtMillis = Long.MIN_VALUE;
    return safety();
  }

  private void refreshIfOld() {
    long now = clock.millis();
    if (readAtMillis != Long.MIN_VALUE && now - readAtMillis < REFRESH_MILLIS) {
      return;
    }
    readAtMillis = now;
    List<String> read;
    try {
      read = List.copyOf(policies.get());
    } catch (RuntimeException e) {
      LOG.debug("Redis maxmemory-policy not readable: {}", e.getMessage());
      return;
    }
    List<String> previous = lastPolicies;
    lastPolicies = read;
    if (!Objects.equals(previous, read)) {
      report(read);
    }
  }

  private static void report(List<String> read) {
    String shown = String.join(", ", read.stream().distinct().toList());
    boolean evicting = read.stream().anyMatch(p -> safetyOf(p) == Safety.EVICTS_BOOKKEEPING);
    boolean unknown = read.stream().anyMatch(p -> safetyOf(p) == Safety.UNKNOWN);
    if (evicting) {
      LOG.warn(
          "Redis maxmemory-policy is {}: Redis may evict the service's own keys (due index, hot set, epoch marker,"
              + " popularity, lock token counters) when memory is full; keys may then be refreshed late, and a lost epoch"
              + " marker starts a refill. Use noeviction or a volatile-* policy (docs/operations.md)",
          shown);
    } else if (unknown) {
      LOG.warn("Redis maxmemory-policy not recognised or not readable ({})", shown);
    } else {
      LOG.info("Redis maxmemory-policy is {}: the service's own keys are never evicted", shown);
    }
  }

  private static String policyOf(RedisNode master) {
    try {
      Map<String, String> config = master.getConfig("maxmemory-policy");
      String policy = config.get("maxmemory-policy");
      if (policy != null) {
        return policy;
      }
    } catch (RuntimeException e) {
      LOG.debug("CONFIG GET refused ({}); reading INFO memory", e.getMessage());
    }
    return master.info(RedisNode.InfoSection.MEMORY).get("maxmemory_policy");
  }
}
