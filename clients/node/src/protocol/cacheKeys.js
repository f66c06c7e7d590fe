/**
 * Names of Refresher's own keys that sit beside an application key in the same cluster slot, so
 * that one script can touch both (docs/protocol.md, "Same slot as the key").
 *
 * Redis Cluster hashes only the part inside the first non-empty {...} of a key. So a key with a
 * hash tag (user:{42}:cart) lends its tag to the companion (refresher:meta:{42}:user:{42}:cart); a
 * key without a tag and without '}' is wrapped whole (refresher:meta:{product:42}); and a key with
 * no valid tag but a '}' (wrapping would cut the tag short) gets a short tag chosen to hash to the
 * key's slot.
 */
import { crc16 } from './crc16.js';

export const META_PREFIX = 'refresher:meta:';
export const LOCK_PREFIX = 'refresher:lock:';
/** Prefix of the short lock a client takes so that one process runs a key's loader at a time. */
export const FLIGHT_PREFIX = 'refresher:flight:';
export const SLOTS = 16384;

const utf8 = new TextEncoder();
/** For each slot, the shortest decimal string hashing to it; built on first need (a few ms). */
let tagBySlot = null;

export function metaKey(key) {
  return companion(META_PREFIX, key);
}

/** The service's refresh lock of a key. */
export function lockName(key) {
  return companion(LOCK_PREFIX, key);
}

/** The single-flight lock of a key that clients load themselves (the same name in every client). */
export function flightLockName(key) {
  return companion(FLIGHT_PREFIX, key);
}

export function companion(prefix, key) {
  const tag = hashTag(key);
  if (tag !== null) {
    return `${prefix}{${tag}}:${key}`;
  }
  if (!key.includes('}')) {
    return `${prefix}{${key}}`;
  }
  return `${prefix}{${tagForSlot(slot(key))}}:${key}`;
}

/** The hash tag Redis uses for the key, or null when it hashes the whole key. */
export function hashTag(key) {
  const open = key.indexOf('{');
  if (open < 0) {
    return null;
  }
  const close = key.indexOf('}', open + 1);
  if (close < 0 || close === open + 1) {
    return null;
  }
  return key.substring(open + 1, close);
}

/** The cluster slot of a key, as Redis computes it (over UTF-8 bytes). */
export function slot(key) {
  const tag = hashTag(key);
  return crc16(utf8.encode(tag !== null ? tag : key)) % SLOTS;
}

function tagForSlot(wanted) {
  if (tagBySlot === null) {
    const table = new Array(SLOTS);
    let found = 0;
    for (let candidate = 0; found < SLOTS; candidate++) {
      const text = String(candidate);
      const s = crc16(utf8.encode(text)) % SLOTS;
      if (table[s] === undefined) {
        table[s] = text;
        found++;
      }
    }
    tagBySlot = table;
  }
  return tagBySlot[wanted];
}
