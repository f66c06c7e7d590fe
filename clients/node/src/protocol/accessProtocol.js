/**
 * Where applications report reads, so that the service can tell hot keys from cold ones
 * (docs/protocol.md, "Access counting"): each key's count is added with HINCRBY to a hash named
 * after the unix second of the report and one of SHARDS shards, which expires after
 * BUCKET_TTL_SECONDS when the service does not consume it.
 *
 *   HINCRBY refresher:access:{9}:1795983684 product:42 118
 *   EXPIRE  refresher:access:{9}:1795983684 60
 */
import { crc32 } from './crc32.js';

export const PREFIX = 'refresher:access:';
export const SHARDS = 16;
/** How long a bucket lives when the service does not consume it (it deletes consumed ones). */
export const BUCKET_TTL_SECONDS = 60;

const utf8 = new TextEncoder();

/** The bucket hash of one shard and one unix second. */
export function bucketKey(shard, unixSecond) {
  if (!Number.isInteger(shard) || shard < 0 || shard >= SHARDS) {
    throw new RangeError(`shard must be in 0..${SHARDS - 1}, was ${shard}`);
  }
  return `${PREFIX}{${shard}}:${unixSecond}`;
}

/**
 * The shard a key's reads are reported to: CRC-32 (zlib's) of its UTF-8 bytes, mod 16. Any shard
 * would be correct (the service sums a key over all 16); the CRC only spreads the load.
 */
export function shardOf(key) {
  return crc32(utf8.encode(key)) % SHARDS;
}

/** The bucket second of a moment in epoch ms: floor, also before 1970. */
export function secondOf(epochMillis) {
  return Math.floor(epochMillis / 1000);
}
