package io.refresher.redis;

import io.refresher.failure.CacheUnavailableException;
import java.time.InstantSource;

/**
 * Whether Redis is known to be unreachable, as the epoch guard last found it: after several
 * of its checks in a row went unanswered ({@link RedisProbe}); it checks every 100 ms while Redis
 * is away.
 *
 * <p>While it is, the adapters fail at once instead of sending: a command to a frozen or absent
 * Redis waits out its timeout and retry (seconds), and every admin request and refresh would wait
 * with it. Failing fast keeps admin answers prompt (503 with {@code Retry-After}, or a status that
 * says Redis is unavailable) and refresh workers free; the guard's next successful probe lets
 * commands through again.
 */
public final class RedisReachability {

  private final InstantSource clock;
  private volatile long unreachableSinceMillis;

  /** @param clock says how long Redis has been away, in the failures' messages */
  public RedisReachability(InstantSource clock) {
    this.clock = clock;
  }

  /** A Redis that is never marked unreachable: the adapters always send (tests, tools). */
  public static RedisReachability assumed() {
    return new RedisReachability(InstantSource.system());
  }

  /** @param sinceMillis when Redis stopped answering (the first unanswered check), for the messages */
  void markUnreachable(long sinceMillis) {
    if (unreachableSinceMillis == 0) {
      unreachableSinceMillis = Math.max(1, sinceMillis);
    }
  }

  void markReachable() {
    unreachableSinceMillis = 0;
  }

  public boolean reachable() {
    return unreachableSinceMillis == 0;
  }

  /**
   * Throws {@link CacheUnavailableException} at once while Redis is known to be unreachable.
   *
   * @param what the operation, for the message
   */
  public void require(String what) {
    long since = unreachableSinceMillis;
    if (since != 0) {
      throw new CacheUnavailableException(
          what + " not sent: Redis unavailable for " + (clock.millis() - since) + " ms", null);
    }
  }
}
