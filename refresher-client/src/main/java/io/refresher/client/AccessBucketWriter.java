package io.refresher.client;

import io.refresher.client.protocol.AccessProtocol;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.redisson.api.BatchOptions;
import org.redisson.api.RBatch;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

/**
 * Adds read counts to the access buckets of {@link AccessProtocol}, all shards in one pipelined
 * round trip ({@link RBatch}).
 *
 * <p>The protocol says {@code HINCRBY}; Redisson's {@code RMap.addAndGet} sends {@code
 * HINCRBYFLOAT}, whose float field values the service would have to parse differently. Hence a
 * small script per shard (one bucket key, so one cluster slot) that loops over the pairs.
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
   * What one write achieved: {@code written} reads reached Redis; {@code unwritten} did not (or
   * may not have: a call whose answer was lost counts as unwritten), and {@code error} says why.
   */
  record Result(long written, Map<String, Long> unwritten, RuntimeException error) {
    boolean complete() {
      return unwritten.isEmpty();
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
      RBatch batch = redisson.createBatch(BatchOptions.defaults());
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
    Map<String, Long> unwritten = new HashMap<>();
    for (int i = 0; i < chunks.size(); i++) {
      Map<String, Long> chunk = chunks.get(i).counts();
      boolean succeeded =
          i < calls.size() && calls.get(i).isDone() && !calls.get(i).isCompletedExceptionally();
      if (succeeded) {
        written += chunk.values().stream().mapToLong(Long::longValue).sum();
      } else {
        unwritten.putAll(chunk);
      }
    }
    if (!unwritten.isEmpty() && error == null) {
      error = new IllegalStateException("a pipelined access-count write did not complete");
    }
    return new Result(written, unwritten, error);
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
