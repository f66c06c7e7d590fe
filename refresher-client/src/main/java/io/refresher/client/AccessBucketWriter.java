package io.refresher.client;

import io.refresher.client.protocol.AccessProtocol;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.redisson.api.BatchOptions;
import org.redisson.api.RBatch;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.redisson.client.RedisAuthRequiredException;
import org.redisson.client.RedisBusyException;
import org.redisson.client.RedisClusterDownException;
import org.redisson.client.RedisConnectionException;
import org.redisson.client.RedisLoadingException;
import org.redisson.client.RedisMasterDownException;
import org.redisson.client.RedisOutOfMemoryException;
import org.redisson.client.RedisReadonlyException;
import org.redisson.client.RedisResponseTimeoutException;
import org.redisson.client.RedisTimeoutException;
import org.redisson.client.RedisTryAgainException;
import org.redisson.client.RedisWrongPasswordException;
import org.redisson.client.codec.StringCodec;

/**
 * Adds read counts to the access buckets of {@link AccessProtocol}, all shards in one pipelined
 * round trip ({@link RBatch}).
 *
 * <p>The protocol says {@code HINCRBY}; Redisson's {@code RMap.addAndGet} sends {@code
 * HINCRBYFLOAT}, whose float field values the service would have to parse differently. Hence a
 * small script per shard (one bucket key, so one cluster slot) that loops over the pairs.
 *
 * <p>At most once: a call is sent once (the batch's own {@code retryAttempts} is 0) and a call
 * whose outcome is unknown is never sent again. Redis may have applied a call whose answer timed
 * out or whose connection closed before the answer came; sending it again counted those reads
 * twice (under load, 61.9 M reads in Redis against 55.9 M flushed). Its reads are reported as
 * {@code unconfirmed} instead: a few lost reads bend a key's rate less than doubled ones, and
 * only a call Redis surely did not run (no connection, never written, an error reply) is kept for
 * the next flush.
 */
final class AccessBucketWriter {

  /** Fields per script call: keeps each call short, so Redis is never blocked for long. */
  static final int MAX_FIELDS_PER_CALL = 1000;

  /** KEYS: bucket. ARGV: TTL seconds, then field, count, field, count, ... */
  static final String ADD_COUNTS =
      """
      for i = 2, #ARGV, 2 do
        redis.call('HINCRBY', KEYS[1], ARGV[i], ARGV[i + 1])
      end
      redis.call('EXPIRE', KEYS[1], ARGV[1])
      return 1
      """;

  /**
   * What one write achieved: {@code written} reads reached Redis; {@code unwritten} surely did
   * not (kept for the next flush); {@code unconfirmed} reads were sent but their answer was lost,
   * so they may or may not be in Redis (not sent again); {@code error} says why.
   */
  record Result(long written, Map<String, Long> unwritten, long unconfirmed, RuntimeException error) {
    boolean complete() {
      return unwritten.isEmpty() && unconfirmed == 0;
    }
  }

  private final RedissonClient redisson;

  AccessBucketWriter(RedissonClient redisson) {
    this.redisson = redisson;
  }

  Result write(Map<String, Long> counts, long nowMillis) {
    long second = AccessProtocol.secondOf(nowMillis);
    List<Chunk> chunks = chunksByShard(counts);
    List<CompletableFuture<Object>> calls = new ArrayList<>(chunks.size());
    RuntimeException error = null;
    try {
      RBatch batch = redisson.createBatch(BatchOptions.defaults().retryAttempts(0));
      for (Chunk chunk : chunks) {
        String bucket = AccessProtocol.bucketKey(chunk.shard(), second);
        calls.add(
            batch
                .getScript(StringCodec.INSTANCE)
                .evalAsync(
                    bucket,
                    RScript.Mode.READ_WRITE,
                    ADD_COUNTS,
                    RScript.ReturnType.INTEGER,
                    List.<Object>of(bucket),
                    arguments(chunk.counts()))
                .toCompletableFuture());
      }
      batch.execute();
    } catch (RuntimeException e) {
      error = e;
    }
    long written = 0;
    long unconfirmed = 0;
    Map<String, Long> unwritten = new HashMap<>();
    for (int i = 0; i < chunks.size(); i++) {
      Map<String, Long> chunk = chunks.get(i).counts();
      long reads = chunk.values().stream().mapToLong(Long::longValue).sum();
      Outcome outcome = i < calls.size() ? outcomeOf(calls.get(i), error) : outcomeOf(null, error);
      switch (outcome) {
        case WRITTEN -> written += reads;
        case NOT_RUN -> unwritten.putAll(chunk);
        case UNKNOWN -> unconfirmed += reads;
      }
    }
    if ((!unwritten.isEmpty() || unconfirmed > 0) && error == null) {
      error = new IllegalStateException("a pipelined access-count write did not complete");
    }
    return new Result(written, unwritten, unconfirmed, error);
  }

  private enum Outcome {
    WRITTEN,
    /** Redis surely did not run it: safe to send again. */
    NOT_RUN,
    /** Sent, answer lost: Redis may have run it. */
    UNKNOWN
  }

  /** What became of one call, from its future or, when that never completed, the batch's error. */
  private static Outcome outcomeOf(CompletableFuture<Object> call, RuntimeException batchError) {
    if (call == null) {
      // The batch failed while it was being built: this call was never queued.
      return Outcome.NOT_RUN;
    }
    if (call.isDone()) {
      Throwable failure = failureOf(call);
      if (failure == null) {
        return Outcome.WRITTEN;
      }
      return surelyNotRun(failure) ? Outcome.NOT_RUN : Outcome.UNKNOWN;
    }
    return batchError != null && surelyNotRun(batchError) ? Outcome.NOT_RUN : Outcome.UNKNOWN;
  }

  private static Throwable failureOf(CompletableFuture<Object> done) {
    try {
      done.join();
      return null;
    } catch (CompletionException e) {
      return e.getCause() == null ? e : e.getCause();
    } catch (CancellationException e) {
      return e;
    }
  }

  /**
   * Failures after which Redis did not run the call: no connection; never written to one
   * (Redisson's "still hasn't been written" timeout, unlike a response timeout); or an error
   * reply, which Redis gives instead of running a script that would write (OOM, READONLY,
   * LOADING, BUSY, cluster down, TRYAGAIN, MASTERDOWN, authentication).
   */
  static boolean surelyNotRun(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof RedisResponseTimeoutException) {
        return false;
      }
      if (t instanceof RedisConnectionException
          || t instanceof RedisTimeoutException
          || t instanceof RedisOutOfMemoryException
          || t instanceof RedisReadonlyException
          || t instanceof RedisLoadingException
          || t instanceof RedisBusyException
          || t instanceof RedisClusterDownException
          || t instanceof RedisTryAgainException
          || t instanceof RedisMasterDownException
          || t instanceof RedisAuthRequiredException
          || t instanceof RedisWrongPasswordException) {
        return true;
      }
    }
    return false;
  }

  /** The counts of one shard's script call. */
  private record Chunk(int shard, Map<String, Long> counts) {}

  /** The counts grouped by shard, each group cut into pieces of at most MAX_FIELDS_PER_CALL. */
  private static List<Chunk> chunksByShard(Map<String, Long> counts) {
    Map<Integer, List<Chunk>> byShard = new HashMap<>();
    for (Map.Entry<String, Long> entry : counts.entrySet()) {
      int shard = AccessProtocol.shardOf(entry.getKey());
      List<Chunk> shardChunks = byShard.computeIfAbsent(shard, s -> new ArrayList<>());
      if (shardChunks.isEmpty() || shardChunks.get(shardChunks.size() - 1).counts().size() >= MAX_FIELDS_PER_CALL) {
        shardChunks.add(new Chunk(shard, new LinkedHashMap<>()));
      }
      shardChunks.get(shardChunks.size() - 1).counts().put(entry.getKey(), entry.getValue());
    }
    List<Chunk> chunks = new ArrayList<>();
    byShard.values().forEach(chunks::addAll);
    return chunks;
  }

  private static Object[] arguments(Map<String, Long> chunk) {
    Object[] arguments = new Object[1 + 2 * chunk.size()];
    arguments[0] = Integer.toString(AccessProtocol.BUCKET_TTL_SECONDS);
    int i = 1;
    for (Map.Entry<String, Long> entry : chunk.entrySet()) {
      arguments[i++] = entry.getKey();
      arguments[i++] = Long.toString(entry.getValue());
    }
    return arguments;
  }
}
