package io.refresher.redis;

import java.time.InstantSource;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.refresher.client.protocol.CacheKeys;
import io.refresher.embedded.EmbeddedRedisCluster;
import io.refresher.refresh.CacheStore;
import io.refresher.failure.CacheUnavailableException;
import io.refresher.refresh.Fence;
import io.refresher.refresh.KeyLocks;
import io.refresher.testing.ClusterTestRedis;
import io.refresher.testing.RealServers;
import io.refresher.testing.TestRedis;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RFencedLock;
import org.redisson.api.RedissonClient;
import org.redisson.api.redisnode.RedisNode;
import org.redisson.api.redisnode.RedisNodes;
import org.redisson.client.codec.StringCodec;
import org.redisson.config.Config;

/**
 * The batched lock and write scripts on a real Redis: refreshes that reach Redis while a request
 * is on the wire share the next one, each still gets its own answer, one bad key does not fail
 * the others, the lock keeps Redisson's fenced-lock semantics and layout, and nothing is published.
 *
 * <p>To make batching deterministic, Redis is frozen ({@code SIGSTOP}) while the first request is on
 * the wire, and the test waits until the others are queued behind it before thawing.
 */
class BatchedRefreshScriptsIT {

  private static TestRedis redis;
  private static RedissonClient redisson;
  private static RedisCacheStore store;
  private static RedisKeyLocks locks;
  private static ExecutorService threads;

  @BeforeAll
  static void start() {
    redis = RealServers.newRedis();
    // Every connection opened up front: a connection opened while Redis is frozen waits for its
    // handshake, and the calls made during a freeze must be on the wire, not waiting for one.
    Config config = new Config();
    config.setCodec(StringCodec.INSTANCE);
    config.useSingleServer().setAddress(redis.url()).setConnectionPoolSize(16).setConnectionMinimumIdleSize(16);
    redisson = Redisson.create(config);
    store = new RedisCacheStore(redisson);
    locks = new RedisKeyLocks(redisson);
    threads = Executors.newFixedThreadPool(70);
  }

  @AfterAll
  static void stop() {
    threads.shutdownNow();
    redisson.shutdown();
    redis.close();
  }

  @AfterEach
  void thawed() {
    if (redis.supportsProcessFaults()) {
      redis.thaw();
    }
  }

  @Test
  void writesArrivingWhileOneIsOnTheWire_goTogether_eachGetsItsOwnAnswer() {
    assertThat(redis.supportsProcessFaults()).as("needs an embedded Redis to freeze (CI runs on embedded servers)").isTrue();
    long requestsBefore = store.writeRequests();

    List<CompletableFuture<CacheStore.WriteResult>> results =
        whileFrozen(
            () -> store.queuedWrites(),
            RedisCacheStore.WRITES_IN_FLIGHT,
            64,
            i -> writeNow("batch:w:" + i, "value-" + i, new Fence(1, 10 + i), null));

    for (int i = 0; i < 64; i++) {
      assertThat(results.get(i).join().written()).as("write %d", i).isTrue();
      assertThat(value("batch:w:" + i)).isEqualTo("value-" + i);
      assertThat(meta("batch:w:" + i)).containsEntry("token", Long.toString(10 + i));
    }
    // The first few alone (as many as may be on the wire at once), then the others, queued behind
    // them, in batches of at most MAX_WRITE_BATCH.
    int alone = RedisCacheStore.WRITES_IN_FLIGHT;
    long expected = alone + (64 - alone + RedisCacheStore.MAX_WRITE_BATCH - 1) / RedisCacheStore.MAX_WRITE_BATCH;
    assertThat(store.writeRequests() - requestsBefore).as("script calls for 64 writes").isEqualTo(expected);
  }

  /**
   * A batch refresh's keys: their locks asked for together, a key another holder has answered
   * empty, then their values written together, each under its own lock's token; a few script calls
   * for 200 keys, not 400 round trips.
   */
  @Test
  void aBatchRefreshsLocksAndWrites_sentTogether_eachKeyItsOwnAnswer() {
    List<String> keys = java.util.stream.IntStream.range(0, 200).mapToObj(i -> "batch:all:" + i).toList();
    KeyLocks.HeldLock other = locks.tryAcquire("batch:all:17", Duration.ofSeconds(30)).orElseThrow();
    long lockRequestsBefore = locks.requests();
    long writeRequestsBefore = store.writeRequests();

    Map<String, KeyLocks.Attempt> attempts = locks.tryAcquireAll(keys, Duration.ofSeconds(30));

    assertThat(attempts.get("batch:all:17").lock()).as("held by another").isEmpty();
    assertThat(attempts.values()).allSatisfy(attempt -> assertThat(attempt.failure()).isNull());
    List<CacheStore.WriteRequest> writes = new ArrayList<>();
    Instant now = Instant.now();
    for (String key : keys) {
      attempts.get(key).lock().ifPresent(lock -> writes.add(
          new CacheStore.WriteRequest(
              key, "v:" + key, new Fence(1, lock.token()), 0, new CacheStore.ValueMeta(now, Duration.ofMillis(3), now.plusSeconds(30)),
              Duration.ofMinutes(1), 20, lock)));
    }
    Map<String, CacheStore.WriteAttempt> written = store.writeAll(writes);

    assertThat(writes).hasSize(199);
    for (CacheStore.WriteRequest write : writes) {
      assertThat(written.get(write.key()).result().written()).as("write of %s", write.key()).isTrue();
      assertThat(value(write.key())).isEqualTo("v:" + write.key());
      assertThat(meta(write.key())).containsEntry("token", Long.toString(write.fence().token()));
    }
    assertThat(value("batch:all:17")).isNull();
    // the first call leaves alone, the rest queued behind it in batches of the scripts' limits
    assertThat(locks.requests() - lockRequestsBefore)
        .as("lock script calls for 200 keys")
        .isLessThanOrEqualTo(1 + (200 + RedisKeyLocks.MAX_BATCH - 1) / RedisKeyLocks.MAX_BATCH);
    assertThat(store.writeRequests() - writeRequestsBefore)
        .as("write script calls for 199 keys")
        .isLessThanOrEqualTo(1 + (199 + RedisCacheStore.MAX_WRITE_BATCH - 1) / RedisCacheStore.MAX_WRITE_BATCH);
    other.release();
  }

  /**
   * Many threads writing at once, several batches on the wire: every write is answered, once, with
   * its own result. (Two threads taking batches at once once put one write in two batches and the
   * next in none: its caller waited 30 s for a reply that never came.)
   */
  @Test
  void manyConcurrentWriters_everyWriteAnsweredWithItsOwnResult() {
    int writers = 48;
    int each = 150;
    List<CompletableFuture<Integer>> done = new ArrayList<>();
    for (int w = 0; w < writers; w++) {
      int writer = w;
      done.add(
          CompletableFuture.supplyAsync(
              () -> {
                int written = 0;
                for (int i = 0; i < each; i++) {
                  String key = "batch:many:" + writer + ":" + i;
                  if (writeNow(key, "v" + i, new Fence(1, 1), null).written()) {
                    written++;
                  }
                }
                return written;
              },
              threads));
    }
    for (CompletableFuture<Integer> writer : done) {
      assertThat(writer.join()).isEqualTo(each);
    }
    assertThat(value("batch:many:7:149")).isEqualTo("v149");
  }

  @Test
  void aKeyThatBreaksTheScript_failsAlone_theRestOfItsBatchIsWritten() {
    assertThat(redis.supportsProcessFaults()).as("needs an embedded Redis to freeze (CI runs on embedded servers)").isTrue();
    // A string where the metadata hash belongs: HMGET answers WRONGTYPE, which aborts a script.
    redisson.getBucket(CacheKeys.metaKey("batch:bad:6"), StringCodec.INSTANCE).set("not a hash");

    List<CompletableFuture<CacheStore.WriteResult>> results =
        whileFrozen(
            () -> store.queuedWrites(),
            RedisCacheStore.WRITES_IN_FLIGHT,
            8,
            i -> writeNow("batch:bad:" + i, "good-" + i, new Fence(1, 1), null));

    for (int i = 0; i < 8; i++) {
      if (i == 6) {
        CompletableFuture<CacheStore.WriteResult> bad = results.get(i);
        assertThatThrownBy(bad::join).hasCauseInstanceOf(CacheUnavailableException.class).hasMessageContaining("Redis error");
        assertThat(value("batch:bad:6")).isNull();
      } else {
        assertThat(results.get(i).join().written()).as("write %d", i).isTrue();
        assertThat(value("batch:bad:" + i)).isEqualTo("good-" + i);
      }
    }
  }

  @Test
  void locksOfOneBatch_oneTokenPerKey_tokensFromTheKeysCounter() {
    assertThat(redis.supportsProcessFaults()).as("needs an embedded Redis to freeze (CI runs on embedded servers)").isTrue();
    redisson.getBucket(RedisKeyLocks.tokenCounterName("batch:l:0"), StringCodec.INSTANCE).set("41");

    // Ten keys, each asked for twice in the same batch: one of each pair gets the lock.
    List<CompletableFuture<Optional<KeyLocks.HeldLock>>> results =
        whileFrozen(() -> locks.queuedAcquisitions(), RedisKeyLocks.IN_FLIGHT, 20, i -> locks.tryAcquire("batch:l:" + (i % 10), Duration.ofSeconds(30)));

    for (int key = 0; key < 10; key++) {
      Optional<KeyLocks.HeldLock> first = results.get(key).join();
      Optional<KeyLocks.HeldLock> second = results.get(key + 10).join();
      assertThat(first.isPresent() ^ second.isPresent()).as("exactly one of the two holds batch:l:%d", key).isTrue();
      KeyLocks.HeldLock held = first.orElseGet(second::orElseThrow);
      assertThat(held.token()).isEqualTo(key == 0 ? 42 : 1);
      held.release();
    }
    await().atMost(Duration.ofSeconds(10))
        .untilAsserted(() -> assertThat(redisson.getKeys().countExists(lockNames(10))).as("locks left").isZero());
  }

  /**
   * A lock call that timed out may still run when Redis resumes, leaving the key locked by an
   * owner that gave up on it: the retry of that refresh must get the lock, not skip the key as
   * locked (a skipped key waits out its whole claim lease).
   */
  @Test
  void anAcquisitionWhoseReplyWasLost_doesNotLockOutItsRetry() {
    assertThat(redis.supportsProcessFaults()).as("needs an embedded Redis to freeze (CI runs on embedded servers)").isTrue();
    Config config = new Config();
    config.useSingleServer().setAddress(redis.url()).setTimeout(300).setRetryAttempts(0);
    RedissonClient impatient = Redisson.create(config);
    try {
      RedisKeyLocks impatientLocks = new RedisKeyLocks(impatient);
      // Redis and the client know the script, so the call that times out is the script itself.
      impatientLocks.tryAcquire("batch:lost:warm", Duration.ofSeconds(30)).orElseThrow().release();
      String key = "batch:lost";
      redis.freeze();
      try {
        assertThatThrownBy(() -> impatientLocks.tryAcquire(key, Duration.ofSeconds(30)))
            .isInstanceOf(CacheUnavailableException.class);
      } finally {
        redis.thaw();
      }
      await().atMost(Duration.ofSeconds(10)).until(() -> redisson.getKeys().countExists(CacheKeys.lockName(key)) == 1);

      assertThat(impatientLocks.tryAcquire(key, Duration.ofSeconds(30))).as("the retry's lock").isPresent();
    } finally {
      impatient.shutdown();
    }
  }

  @Test
  void theWriteReleasesItsLock_aReleaseAfterItSendsNothing() {
    String key = "batch:release";
    KeyLocks.HeldLock held = locks.tryAcquire(key, Duration.ofSeconds(30)).orElseThrow();
    assertThat(redisson.getKeys().countExists(CacheKeys.lockName(key))).isEqualTo(1);

    assertThat(write(key, "v", new Fence(1, held.token()), held).join().written()).isTrue();

    assertThat(redisson.getKeys().countExists(CacheKeys.lockName(key))).as("lock after the write").isZero();
    long requests = locks.requests();
    held.release();
    assertThat(locks.requests()).as("lock requests after release()").isEqualTo(requests);
    assertThat(locks.tryAcquire(key, Duration.ofSeconds(30))).as("free for the next refresh").isPresent();
  }

  @Test
  void aWriteWhoseLeaseRanOut_leavesTheNextHoldersLockAlone() {
    String key = "batch:lease";
    KeyLocks.HeldLock stale = locks.tryAcquire(key, Duration.ofMillis(200)).orElseThrow();
    KeyLocks.HeldLock next =
        await().atMost(Duration.ofSeconds(10)).until(() -> locks.tryAcquire(key, Duration.ofSeconds(30)), Optional::isPresent).orElseThrow();

    write(key, "late", new Fence(1, stale.token()), stale).join();

    assertThat(redisson.getKeys().countExists(CacheKeys.lockName(key))).as("the next holder's lock").isEqualTo(1);
    assertThat(write(key, "newer", new Fence(1, next.token()), next).join().written()).isTrue();
    assertThat(value(key)).isEqualTo("newer");
  }

  @Test
  void redissonsOwnFencedLock_andTheseScripts_excludeEachOther_andShareTheTokenCounter() {
    String key = "batch:compat";
    RFencedLock redissonLock = redisson.getFencedLock(CacheKeys.lockName(key));
    Long redissonToken = CompletableFuture.supplyAsync(() -> redissonLock.tryLockAndGetToken(0, 30, TimeUnit.SECONDS)).join();
    assertThat(redissonToken).isNotNull();

    assertThat(locks.tryAcquire(key, Duration.ofSeconds(30))).as("while Redisson's lock is held").isEmpty();

    redissonLock.forceUnlock();
    KeyLocks.HeldLock ours = locks.tryAcquire(key, Duration.ofSeconds(30)).orElseThrow();
    assertThat(ours.token()).as("next token of the same counter").isEqualTo(redissonToken + 1);
    assertThat(CompletableFuture.supplyAsync(() -> redissonLock.tryLockAndGetToken(0, 30, TimeUnit.SECONDS)).join())
        .as("Redisson's lock while ours is held")
        .isNull();
    ours.release();
    await().atMost(Duration.ofSeconds(10)).until(() -> !redissonLock.isLocked());
  }

  @Test
  void locksAndWrites_publishNothing() {
    RedisNode node = redisson.getRedisNodes(RedisNodes.SINGLE).getInstance();
    long before = publishCalls(node);
    for (int i = 0; i < 20; i++) {
      String key = "batch:pub:" + i;
      KeyLocks.HeldLock held = locks.tryAcquire(key, Duration.ofSeconds(30)).orElseThrow();
      if (i % 2 == 0) {
        write(key, "v", new Fence(1, held.token()), held).join();
      }
      held.release();
    }
    await().atMost(Duration.ofSeconds(10))
        .untilAsserted(() -> assertThat(redisson.getKeys().countExists(lockNames("batch:pub:", 20))).isZero());
    assertThat(publishCalls(node)).as("PUBLISH calls").isEqualTo(before);
  }

  @Test
  void onRedisCluster_concurrentLocksAndWritesOfManySlots_eachAnswered() {
    EmbeddedRedisCluster cluster = ClusterTestRedis.startCluster();
    RedissonClient clustered = ClusterTestRedis.of(cluster).connect();
    try {
      RedisKeyLocks clusterLocks = new RedisKeyLocks(clustered, RedisReachability.assumed(), true, InstantSource.system());
      RedisCacheStore clusterStore = new RedisCacheStore(clustered, RedisReachability.assumed(), true);
      List<CompletableFuture<Boolean>> refreshes = new ArrayList<>();
      for (int i = 0; i < 200; i++) {
        String key = "cluster:batch:" + i;
        refreshes.add(
            CompletableFuture.supplyAsync(
                () -> {
                  KeyLocks.HeldLock held = clusterLocks.tryAcquire(key, Duration.ofSeconds(30)).orElseThrow();
                  Instant now = Instant.now();
                  return clusterStore
                      .write(
                          key,
                          "v:" + key,
                          new Fence(1, held.token()),
                          0,
                          new CacheStore.ValueMeta(now, Duration.ofMillis(2), now.plusSeconds(30)),
                          Duration.ofMinutes(1),
                          20,
                          held)
                      .written();
                },
                threads));
      }
      for (int i = 0; i < 200; i++) {
        assertThat(refreshes.get(i).join()).as("refresh %d", i).isTrue();
        String key = "cluster:batch:" + i;
        assertThat(clustered.<String>getBucket(key, StringCodec.INSTANCE).get()).isEqualTo("v:" + key);
        assertThat(clustered.getKeys().countExists(CacheKeys.lockName(key))).as("lock of " + key).isZero();
      }
    } finally {
      clustered.shutdown();
    }
  }

  /**
   * Freezes Redis, sends the first {@code onTheWire} calls one by one (the calls the batcher lets
   * out at once, each alone; they wait in the frozen Redis), then the rest, waits until those are
   * all queued behind them, and thaws; their futures.
   */
  private static <T> List<CompletableFuture<T>> whileFrozen(
      Supplier<Integer> queued, int onTheWire, int calls, java.util.function.IntFunction<T> call) {
    List<CompletableFuture<T>> results = new ArrayList<>();
    redis.freeze();
    try {
      for (int i = 0; i < onTheWire; i++) {
        int index = i;
        results.add(CompletableFuture.supplyAsync(() -> call.apply(index), threads));
        // Taken from the queue and sent at once (a batch slot was free).
        await().pollDelay(Duration.ofMillis(100)).atMost(Duration.ofSeconds(2)).until(() -> queued.get() == 0);
      }
      for (int i = onTheWire; i < calls; i++) {
        int index = i;
        results.add(CompletableFuture.supplyAsync(() -> call.apply(index), threads));
      }
      await().atMost(Duration.ofSeconds(5)).until(() -> queued.get() == calls - onTheWire);
    } finally {
      redis.thaw();
    }
    return results;
  }

  private static CompletableFuture<CacheStore.WriteResult> write(String key, String value, Fence fence, KeyLocks.HeldLock lock) {
    return CompletableFuture.supplyAsync(() -> writeNow(key, value, fence, lock), threads);
  }

  private static CacheStore.WriteResult writeNow(String key, String value, Fence fence, KeyLocks.HeldLock lock) {
    Instant now = Instant.now();
    return store.write(
        key,
        value,
        fence,
        0,
        new CacheStore.ValueMeta(now, Duration.ofMillis(3), now.plusSeconds(30)),
        Duration.ofMinutes(1),
        20,
        lock);
  }

  private static long publishCalls(RedisNode node) {
    Map<String, String> stats = node.info(RedisNode.InfoSection.COMMANDSTATS);
    String line = stats.get("cmdstat_publish");
    if (line == null) {
      return 0;
    }
    java.util.regex.Matcher calls = java.util.regex.Pattern.compile("calls=(\\d+)").matcher(line);
    return calls.find() ? Long.parseLong(calls.group(1)) : 0;
  }

  private static String[] lockNames(int count) {
    return lockNames("batch:l:", count);
  }

  private static String[] lockNames(String prefix, int count) {
    String[] names = new String[count];
    for (int i = 0; i < count; i++) {
      names[i] = CacheKeys.lockName(prefix + i);
    }
    return names;
  }

  private static String value(String key) {
    return redisson.<String>getBucket(key, StringCodec.INSTANCE).get();
  }

  private static Map<String, String> meta(String key) {
    return redisson.<String, String>getMap(CacheKeys.metaKey(key), StringCodec.INSTANCE).readAllMap();
  }
}
