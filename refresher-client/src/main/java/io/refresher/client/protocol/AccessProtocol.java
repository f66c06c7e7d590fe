package io.refresher.client.protocol;

import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32;

/**
 * Where applications report reads, so that the service can tell hot keys from cold ones. The
 * specification, with a {@code redis-cli} example, is {@code docs/protocol.md}, "Access counting".
 *
 * <p>A reader counts reads in-process and, about once a second, adds each key's count to a field
 * of a hash named after the current second and one of {@link #SHARDS} shards:
 *
 * <pre>
 *   HINCRBY refresher:access:{9}:1795983684 product:42 118
 *   EXPIRE  refresher:access:{7}:1795983684 60
 * </pre>
 *
 * <p>The layout has no parameters to agree on: the bucket is the unix second of the flush (the
 * reader's clock), the shard is {@code CRC-32(key) mod 16} (any shard is correct: the service sums
 * a key over all of them; the CRC only spreads the load), and the hash tag {@code {n}} spreads the
 * 16 shards over the slots of a Redis Cluster.
 */
public final class AccessProtocol {

  public static final String PREFIX = "refresher:access:";
  public static final int SHARDS = 16;
  /** How long a bucket lives when the service does not consume it (it deletes consumed ones). */
  public static final int BUCKET_TTL_SECONDS = 60;

  private AccessProtocol() {}

  /** The bucket hash for one shard and one unix second. */
  public static String bucketKey(int shard, long unixSecond) {
    if (shard < 0 || shard >= SHARDS) {
      throw new IllegalArgumentException("shard must be in 0.." + (SHARDS - 1) + ", was " + shard);
    }
    return PREFIX + "{" + shard + "}:" + unixSecond;
  }

  /** The shard a key's reads are reported to: CRC-32 (as in zlib) of its UTF-8 bytes, mod 16. */
  public static int shardOf(String key) {
    CRC32 crc = new CRC32();
    crc.update(key.getBytes(StandardCharsets.UTF_8));
    return (int) (crc.getValue() % SHARDS);
  }

  /** The bucket second of a moment given in epoch milliseconds. */
  public static long secondOf(long epochMillis) {
    return Math.floorDiv(epochMillis, 1000L);
  }
}
