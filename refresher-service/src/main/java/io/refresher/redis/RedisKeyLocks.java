package io.refresher.redis;

import io.refresher.client.protocol.CacheKeys;
import io.refresher.failure.CacheUnavailableException;
import io.refresher.refresh.KeyLocks;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.redisson.api.RedissonClient;
import org.redisson.client.RedisException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Per-key refresh locks: Redisson's fenced lock, taken and released by this service's own scripts
 * so that many keys' locks travel in one request.
 *
 * <p><b>The lock is Redisson's {@code RFencedLock}, in its own data layout</b>: a hash under the
 * lock's name whose one field is the owner (count 1) and whose TTL is the lease, and a token
 * counter {@code redisson_lock_token:<lock name>} incremented on every acquisition, whose value is
 * the fencing token. The acquisition script does what {@code tryLockAndGetToken(0, lease)} does
 * (take the lock if no one holds it, never wait, no pub/sub subscription, no watchdog: the lease is
 * explicit), for a whole batch of keys in one script call ({@link BatchedScript}); the release
 * deletes the lock if it still holds this owner. Two things differ from calling Redisson's lock
 * per key, and they are the point:
 *
 * <ul>
 *   <li>a batch: Redisson's lock API is one script call per key to take it and one to release it,
 *       and {@code RBatch} cannot carry locks. Here the locks of all refreshes that start within a
 *       round trip are taken by one call, and a successful refresh releases its lock inside the
 *       value write ({@link RedisCacheStore}), so a refresh costs two awaited round trips and, under
 *       load, a fraction of a request each;
 *   <li>no {@code PUBLISH}: Redisson's unlock publishes to the lock's channel for waiters on every
 *       release. This service never waits for a lock (a refresh that finds it taken skips the key),
 *       so nobody listens; on a Redis Cluster a {@code PUBLISH} is broadcast to every node.
 * </ul>
 *
 * <p>Safety is the same: mutual exclusion by the lock hash, a lease that ends the lock of a holder
 * that stalled or died, and a token from the same monotonic counter, which the value write checks
 * (with the Redis epoch) so that a holder that outlived its lease cannot overwrite a newer value.
 * The layout being Redisson's, replicas of an older version (which call {@code RFencedLock}) and of
 * this one exclude each other during a rolling upgrade and draw tokens from one counter.
 *
 * <p>The owner is a per-process id and a sequence number (Redisson uses its client id and the
 * thread id), so a lock can be released from any thread, and a stale release can never free
 * another acquisition's lock.
 *
 * <p><b>Calls whose reply was lost.</b> A lock call that timed out may still run in Redis, and
 * late: a stalled Redis runs its queued commands when it resumes, and a client starved of CPU may
 * write a command to the wire after its caller gave up on it, behind calls sent since on other
 * connections. The key would then be locked for a whole lease by an owner that believes it failed,
 * and every refresh of it skipped. A release (or a value write, which releases the lock) whose
 * reply was lost may not have run, which leaves the lock held just the same. Such owners are
 * suspects: the next acquisition of the key frees a lock a suspect holds, and {@link
 * #releaseAbandoned()} (called every dispatcher tick) releases them, owner-checked. A suspect is
 * forgotten only once a release freed its lock or the lease it could hold has run out, never
 * because a release found the lock free: the lost call may still be on its way.
 */
public final class RedisKeyLocks implements KeyLocks {

  private static final Logger LOG = LoggerFactory.getLogger(RedisKeyLocks.class);

  /**
   * KEYS per item: lock, token counter. ARGV per item: lease ms, owner, abandoned owner (or
   * empty). Answers per item the token, or -1 when the lock is held. A lock still held by the
   * abandoned owner (an earlier acquisition of this process whose reply was lost: nobody uses it)
   * is released first, so the retry of a refresh whose lock call timed out gets the lock instead of
   * finding it taken by itself. A counter this call creates expires a margin after the lease (the
   * write then extends it past the value): a key deleted while its refresh ran leaves nothing.
   *
   * <p>A lock already held by this acquisition's own owner (every acquisition has its own) answers
   * acquired, with the counter's token: this is the same call run a second time (Redisson re-sends
   * a script whose reply was late), and nobody takes a token while the lock is held. Answering
   * "held" would skip the refresh and leave the key locked for a whole lease by nobody.
   */
  static final String ACQUIRE =
      """
      local out = {}
      for i = 1, #KEYS / 2 do
        local lock = KEYS[2 * i - 1]
        local a = 3 * (i - 1)
        if ARGV[a + 3] ~= '' and redis.call('HEXISTS', lock, ARGV[a + 3]) == 1 then
          redis.call('DEL', lock)
        end
        if redis.call('HEXISTS', lock, ARGV[a + 2]) == 1 then
          out[#out + 1] = tonumber(redis.call('GET', KEYS[2 * i]) or '-1')
        elseif redis.call('EXISTS', lock) == 0 then
          local token = redis.call('INCR', KEYS[2 * i])
          if token == 1 then
            redis.call('PEXPIRE', KEYS[2 * i], tonumber(ARGV[a + 1]) + %d)
          end
          out[#out + 1] = token
          redis.call('HSET', lock, ARGV[a + 2], 1)
          redis.call('PEXPIRE', lock, ARGV[a + 1])
        else
          out[#out + 1] = -1
        end
      end
      return out
      """
          .formatted(RedisCacheStore.COUNTER_MARGIN_MILLIS);

  /** KEYS per item: lock. ARGV per item: owner. Deletes each lock still held by its owner. */
  static final String RELEASE =
      """
      local out = {}
      for i = 1, #KEYS do
        if redis.call('HEXISTS', KEYS[i], ARGV[i]) == 1 then
          redis.call('DEL', KEYS[i])
          out[#out + 1] = 1
        else
          out[#out + 1] = 0
        end
      end
      return out
      """;

  /** Most locks in one script call: a few tens of microseconds of Redis time each. */
  static final int MAX_BATCH = 64;

  /**
   * Lock (and release) calls on the wire at once; more acquisitions wait and go together. One:
   * four measured no faster on 2 cores (12.9k against 11.7k refreshes/s, within the noise) and
   * made batches smaller.
   */
  static final int IN_FLIGHT = 1;

  private record Acquisition(String lockName, String counterName, long leaseMillis, String owner, String abandonedOwner) {}

  private record Release(String lockName, String owner) {}

  private final RedissonClient redisson;
  private final RedisReachability reachability;
  private final BatchedScript<Acquisition, Long> acquisitions;
  private final BatchedScript<Release, Boolean> releases;
  private final String ownerPrefix = UUID.randomUUID() + ":r";
  private final AtomicLong ownerSequence = new AtomicLong();
  /**
   * Owners whose lock call's reply was lost, by lock name: the owner and when the lease it could
   * hold ends. One per lock: a later one replaces it (the earlier one's lease ends first anyway).
   */
  private final ConcurrentHashMap<String, Abandoned> abandoned = new ConcurrentHashMap<>();

  private record Abandoned(String owner, long leaseEndMillis) {}

  /** Releases are sent at most this often: while Redis stalls they only queue up. */
  private static final long RELEASE_EVERY_MILLIS = 250;

  private volatile long lastReleaseMillis;

  private final InstantSource clock;

  private final AtomicLong releasedSuspects = new AtomicLong();

  /**
   * The key of the counter the key's tokens come from (Redisson's fenced lock naming: the prefix,
   * then the lock's name, which always carries a hash tag, so the counter sits in the key's slot).
   * The write scripts give it a TTL: Redisson keeps it forever.
   */
  public static String tokenCounterName(String key) {
    return "redisson_lock_token:" + CacheKeys.lockName(key);
  }

  /** For tests and tools: a single server assumed reachable, on this machine's clock. */
  public RedisKeyLocks(RedissonClient redisson) {
    this(redisson, RedisReachability.assumed(), false, InstantSource.system());
  }

  /**
   * @param reachability while Redis is known to be unreachable, calls fail at once
   * @param cluster whether Redis is a cluster (locks of different slots go as separate calls)
   * @param clock this machine's: when a suspect's lease has run out, how often releases are sent
   */
  public RedisKeyLocks(RedissonClient redisson, RedisReachability reachability, boolean cluster, InstantSource clock) {
    this.clock = clock;
    this.redisson = redisson;
    this.reachability = reachability;
    Duration maxWait = Duration.ofSeconds(30);
    this.acquisitions =
        new BatchedScript<>(redisson, cluster, ACQUIRE, new AcquireShape(), MAX_BATCH, Integer.MAX_VALUE, IN_FLIGHT, maxWait);
    this.releases =
        new BatchedScript<>(redisson, cluster, RELEASE, new ReleaseShape(), MAX_BATCH, Integer.MAX_VALUE, IN_FLIGHT, maxWait);
  }

  @Override
  public Optional<HeldLock> tryAcquire(String key, Duration lease) {
    reachability.require("RedisKeyLocks.tryAcquire");
    String name = CacheKeys.lockName(key);
    Abandoned earlier = abandoned.get(name);
    Acquisition acquisition =
        new Acquisition(
            name,
            tokenCounterName(key),
            lease.toMillis(),
            ownerPrefix + ownerSequence.incrementAndGet(),
            earlier == null ? "" : earlier.owner());
    long token;
    try {
      token = acquisitions.call(acquisition);
    } catch (RedisException e) {
      suspect(name, acquisition.owner(), lease.toMillis());
      throw RedisCacheStore.unavailable("lock of key '" + key + "'", e);
    }
    // The earlier suspect stays one: this call freed its lock if it held it, but its own lost call
    // may run only now.
    if (token < 0) {
      return Optional.empty();
    }
    return Optional.of(new Held(this, name, acquisition.owner(), token, key, lease.toMillis()));
  }

  /** The keys' acquisitions in as few script calls as the batch limit allows. */
  @Override
  public java.util.Map<String, Attempt> tryAcquireAll(List<String> keys, Duration lease) {
    java.util.Map<String, Attempt> attempts = new java.util.LinkedHashMap<>();
    try {
      reachability.require("RedisKeyLocks.tryAcquireAll");
    } catch (CacheUnavailableException e) {
      keys.forEach(key -> attempts.put(key, new Attempt(Optional.empty(), e)));
      return attempts;
    }
    List<Acquisition> wanted = new ArrayList<>(keys.size());
    for (String key : keys) {
      String name = CacheKeys.lockName(key);
      Abandoned earlier = abandoned.get(name);
      wanted.add(
          new Acquisition(
              name, tokenCounterName(key), lease.toMillis(), ownerPrefix + ownerSequence.incrementAndGet(), earlier == null ? "" : earlier.owner()));
    }
    List<CompletableFuture<Long>> answers = acquisitions.submitAll(wanted);
    for (int i = 0; i < keys.size(); i++) {
      String key = keys.get(i);
      Acquisition acquisition = wanted.get(i);
      try {
        long token = acquisitions.await(answers.get(i));
        attempts.put(
            key,
            new Attempt(
                token < 0 ? Optional.empty() : Optional.of(new Held(this, acquisition.lockName(), acquisition.owner(), token, key, lease.toMillis())),
                null));
      } catch (RedisException e) {
        suspect(acquisition.lockName(), acquisition.owner(), lease.toMillis());
        attempts.put(key, new Attempt(Optional.empty(), RedisCacheStore.unavailable("lock of key '" + key + "'", e)));
      }
    }
    return attempts;
  }

  @Override
  public Duration remainingLease(String key) {
    reachability.require("RedisKeyLocks.remainingLease");
    try {
      // PTTL: -2 when the lock is gone, -1 never (every lock is taken with a lease).
      return Duration.ofMillis(Math.max(0, redisson.getKeys().remainTimeToLive(CacheKeys.lockName(key))));
    } catch (RedisException e) {
      throw RedisCacheStore.unavailable("lease of the lock of key '" + key + "'", e);
    }
  }

  /**
   * Releases, owner-checked and without waiting, the locks that acquisitions with a lost reply may
   * hold; forgets those whose lease has run out. Never throws.
   */
  @Override
  public void releaseAbandoned() {
    if (abandoned.isEmpty()) {
      return;
    }
    long now = clock.millis();
    if (now - lastReleaseMillis < RELEASE_EVERY_MILLIS) {
      return;
    }
    lastReleaseMillis = now;
    releaseSuspects(now);
  }

  /**
   * Sends one owner-checked release per suspect whose lease may still run; answered when all
   * are (exceptionally if one failed). A suspect whose release freed its lock is forgotten.
   */
  CompletableFuture<Void> releaseSuspects(long now) {
    List<CompletableFuture<Boolean>> sent = new ArrayList<>();
    abandoned.forEach(
        (lockName, suspect) -> {
          if (suspect.leaseEndMillis() <= now) {
            abandoned.remove(lockName, suspect);
            return;
          }
          sent.add(
              releases
                  .submit(new Release(lockName, suspect.owner()))
                  .whenComplete(
                      (released, error) -> {
                        if (error == null && released) {
                          abandoned.remove(lockName, suspect);
                          releasedSuspects.incrementAndGet();
                          LOG.info("released lock {}, taken by a lock call whose reply was lost", lockName);
                        }
                      }));
        });
    return CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new));
  }

  /** Locks freed that a lock call with a lost reply had left taken. */
  long releasedSuspects() {
    return releasedSuspects.get();
  }

  /** The owner suspected of holding the key's lock, if any (for tests). */
  Optional<String> suspectedOwner(String key) {
    return Optional.ofNullable(abandoned.get(CacheKeys.lockName(key))).map(Abandoned::owner);
  }

  /** The owner may hold the lock for up to {@code leaseMillis} from now; nobody uses it. */
  private void suspect(String lockName, String owner, long leaseMillis) {
    abandoned.put(lockName, new Abandoned(owner, clock.millis() + leaseMillis));
  }

  /** Lock script calls sent so far (acquisitions and releases; a batch counts once). */
  public long requests() {
    return acquisitions.requests() + releases.requests();
  }

  /** Acquisitions waiting for the one in flight (for tests). */
  int queuedAcquisitions() {
    return acquisitions.queued();
  }

  /**
   * A held lock. Released either by the value write that ends a successful refresh ({@link
   * RedisCacheStore} puts the lock and owner in its script and marks it), or by {@link #release()}
   * on the other paths; the second of the two does nothing.
   */
  static final class Held implements HeldLock {
    private final RedisKeyLocks locks;
    private final String lockName;
    private final String owner;
    private final long token;
    private final String key;
    private final long leaseMillis;
    private final AtomicBoolean released = new AtomicBoolean();

    private Held(RedisKeyLocks locks, String lockName, String owner, long token, String key, long leaseMillis) {
      this.locks = locks;
      this.lockName = lockName;
      this.owner = owner;
      this.token = token;
      this.key = key;
      this.leaseMillis = leaseMillis;
    }

    @Override
    public long token() {
      return token;
    }

    String lockName() {
      return lockName;
    }

    String owner() {
      return owner;
    }

    /**
     * Called when a script that releases the lock is about to be sent: a later {@link #release()}
     * then sends nothing.
     */
    void releasedByScript() {
      released.set(true);
    }

    /**
     * The reply of the script that was to release the lock was lost: it may not have run, and the
     * lock may still be held. The owner becomes a suspect, so that the key's retry is not skipped
     * as locked by this very refresh. Releasing early is safe: a late write is still fenced.
     */
    void releaseUnconfirmed() {
      locks.suspect(lockName, owner, leaseMillis);
    }

    @Override
    public void release() {
      if (!released.compareAndSet(false, true)) {
        return;
      }
      try {
        locks
            .releases
            .submit(new Release(lockName, owner))
            .whenComplete(
                (wasHeld, error) -> {
                  if (error != null) {
                    LOG.debug("unlock of key '{}' not confirmed: {}", key, error.getMessage());
                    releaseUnconfirmed();
                  } else if (!wasHeld) {
                    // The lease ran out first; the lock is free or someone else's.
                    LOG.debug("unlock of key '{}': the lock was no longer held", key);
                  }
                });
      } catch (RuntimeException e) {
        LOG.debug("unlock of key '{}' not sent: {}", key, e.getMessage());
        releaseUnconfirmed();
      }
    }
  }

  private static final class AcquireShape implements BatchedScript.Shape<Acquisition, Long> {
    @Override
    public String routingKey(Acquisition item) {
      return item.lockName();
    }

    @Override
    public void keys(Acquisition item, List<Object> into) {
      into.add(item.lockName());
      into.add(item.counterName());
    }

    @Override
    public void args(Acquisition item, List<Object> into) {
      into.add(Long.toString(item.leaseMillis()));
      into.add(item.owner());
      into.add(item.abandonedOwner());
    }

    @Override
    public int weight(Acquisition item) {
      return 100;
    }

    @Override
    public int replyWidth() {
      return 1;
    }

    @Override
    public Long parse(List<?> reply, int offset) {
      return ((Number) reply.get(offset)).longValue();
    }
  }

  private static final class ReleaseShape implements BatchedScript.Shape<Release, Boolean> {
    @Override
    public String routingKey(Release item) {
      return item.lockName();
    }

    @Override
    public void keys(Release item, List<Object> into) {
      into.add(item.lockName());
    }

    @Override
    public void args(Release item, List<Object> into) {
      into.add(item.owner());
    }

    @Override
    public int weight(Release item) {
      return 80;
    }

    @Override
    public int replyWidth() {
      return 1;
    }

    @Override
    public Boolean parse(List<?> reply, int offset) {
      return ((Number) reply.get(offset)).longValue() == 1;
    }
  }
}
