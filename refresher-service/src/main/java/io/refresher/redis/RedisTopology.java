package io.refresher.redis;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.redisson.api.RedissonClient;
import org.redisson.api.redisnode.RedisNode;
import org.redisson.api.redisnode.RedisNodes;

/**
 * Which server answers as the primary: what the epoch guard looks at to notice a failover.
 *
 * <p>Behind Sentinel a failover promotes a replica, which keeps (most of) the data and so the epoch
 * marker: nothing looks lost, yet the writes the old primary had not yet replicated are gone, the
 * lock token counters among them, so tokens already handed out can be handed out again. The
 * server's {@code run_id} ({@code INFO server}) is new for every server process, so a change of it
 * tells the guard that another server (or a restarted one) now holds the data.
 */
public interface RedisTopology {

  /**
   * The {@code run_id} of the server that answers as primary now; empty where the topology does
   * not track it (a single server, whose restart with its data keeps the epoch; a cluster).
   *
   * @throws org.redisson.client.RedisException when the primary cannot be asked
   */
  Optional<String> primaryRunId();

  /** Tracks nothing: a single server or a cluster. */
  static RedisTopology untracked() {
    return Optional::empty;
  }

  /**
   * A primary and its replicas behind Sentinel: asks the primary Redisson currently knows for its
   * {@code run_id}, waiting at most {@code timeout}.
   */
  static RedisTopology sentinel(RedissonClient redisson, Duration timeout) {
    return () -> {
      org.redisson.api.redisnode.RedisMaster primary = redisson.getRedisNodes(RedisNodes.SENTINEL_MASTER_SLAVE).getMaster();
      Map<String, String> info;
      try {
        info = primary.infoAsync(RedisNode.InfoSection.SERVER).toCompletableFuture().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new org.redisson.client.RedisException("interrupted asking the primary for its run_id", e);
      } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
        throw new org.redisson.client.RedisException("the primary did not tell its run_id: " + e, e);
      }
      return Optional.ofNullable(info.get("run_id"));
    };
  }
}
