/**
 * The client's Lua scripts, byte for byte those of the Java client and of
 * protocol/vectors/scripts.json (a test checks both), named by their SHA-1 for EVALSHA. Callers
 * of one key from Java and Node thus run the very same code in Redis.
 */
import { createHash } from 'node:crypto';

/** Redis's name for a script: the lower-case hex SHA-1 of its UTF-8 text. */
export function sha1Of(text) {
  return createHash('sha1').update(text, 'utf8').digest('hex');
}

/** @returns {{name: string, text: string, sha1: string, readOnly: boolean}} */
function script(name, text, readOnly) {
  return Object.freeze({ name, text, sha1: sha1Of(text), readOnly });
}

/**
 * Redis's clock in epoch ms, as a script reads it. computedAt and expiresAt are on Redis's clock,
 * which the service follows too: judged by this process's clock they would be early or late by
 * its error.
 */
const REDIS_NOW =
  "local time = redis.call('TIME')\n" +
  "local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)\n";

/** KEYS: value, meta. Returns {value, delta, expiresAt, epoch, Redis's time ms}, nil for what is absent. */
export const READ = script(
  'read',
  REDIS_NOW +
    "local meta = redis.call('HMGET', KEYS[2], 'delta', 'expiresAt', 'epoch')\n" +
    "return {redis.call('GET', KEYS[1]), meta[1], meta[2], meta[3], now}\n",
  true,
);

/**
 * KEYS: value, meta. ARGV: value, ttl ms, delta ms. Returns 1 when written, 0 when refused: a
 * value of the service's (epoch > 0) that is there and fresh by Redis's clock is never replaced
 * by a client. The fence and tombstone are kept, validator and revalidatedAt go, and the
 * metadata's TTL only grows (docs/protocol.md, "Values written by clients").
 */
export const WRITE = script(
  'write',
  REDIS_NOW +
    "local stored = redis.call('HMGET', KEYS[2], 'epoch', 'expiresAt')\n" +
    "local epoch = tonumber(stored[1] or '0') or 0\n" +
    "if epoch > 0 and (tonumber(stored[2] or '0') or 0) > now and redis.call('EXISTS', KEYS[1]) == 1 then\n" +
    '  return 0\n' +
    'end\n' +
    'local ttl = tonumber(ARGV[2])\n' +
    "redis.call('SET', KEYS[1], ARGV[1], 'PX', ttl)\n" +
    "redis.call('HSET', KEYS[2], 'computedAt', now, 'delta', ARGV[3], 'expiresAt', now + ttl,\n" +
    "  'size', string.len(ARGV[1]))\n" +
    "redis.call('HDEL', KEYS[2], 'validator', 'revalidatedAt')\n" +
    'if not stored[1] then\n' +
    "  redis.call('HSET', KEYS[2], 'epoch', '0', 'token', '0')\n" +
    'end\n' +
    "if redis.call('PTTL', KEYS[2]) < ttl then\n" +
    "  redis.call('PEXPIRE', KEYS[2], ttl)\n" +
    'end\n' +
    'return 1\n',
  false,
);

/** KEYS: flight lock. ARGV: token. Deletes the lock only while it is still ours (the lease may have run out). */
export const RELEASE = script(
  'release',
  "if redis.call('GET', KEYS[1]) == ARGV[1] then\n" +
    "  return redis.call('DEL', KEYS[1])\n" +
    'end\n' +
    'return 0\n',
  false,
);

/**
 * KEYS: access bucket. ARGV: TTL seconds, then field, count, field, count... HINCRBY of each pair
 * and EXPIRE of the bucket, atomically: one call either ran whole or not at all, which is what
 * lets a flush tell "surely not counted" from "maybe counted".
 */
export const ADD_COUNTS = script(
  'add-counts',
  'for i = 2, #ARGV, 2 do\n' +
    "  redis.call('HINCRBY', KEYS[1], ARGV[i], ARGV[i + 1])\n" +
    'end\n' +
    "redis.call('EXPIRE', KEYS[1], ARGV[1])\n" +
    'return 1\n',
  false,
);

/** Every script of the client, by name. */
export const SCRIPTS = Object.freeze({ read: READ, write: WRITE, release: RELEASE, 'add-counts': ADD_COUNTS });
