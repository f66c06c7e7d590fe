package io.refresher.client.protocol;

import java.nio.charset.StandardCharsets;

/**
 * Names of Refresher's own Redis keys that sit beside an application key in the same cluster
 * slot, so one script can touch both.
 *
 * <p>Redis Cluster hashes only the part inside the first {@code {...}} of a key (when that part is
 * non-empty), else the whole key. So: a key with a hash tag ({@code user:{42}:cart}) gives its tag
 * to the companion ({@code refresher:meta:{42}:user:{42}:cart}); a key without one and without a
 * {@code '}'} is wrapped whole ({@code refresher:meta:{product:42}}); and a key that has no valid
 * tag but contains {@code '}'} (wrapping it would cut the tag short) gets a short tag chosen to hash
 * to the same slot as the key.
 */
public final class CacheKeys {

  public static final String META_PREFIX = "refresher:meta:";
  public static final String LOCK_PREFIX = "refresher:lock:";
  /** Prefix of the short lock a client takes so that one process runs a key's loader at a time. */
  public static final String FLIGHT_PREFIX = "refresher:flight:";
  public static final int SLOTS = 16384;

  private static volatile String[] tagBySlot;

  private CacheKeys() {}

  public static String metaKey(String key) {
    return companion(META_PREFIX, key);
  }

  public static String lockName(String key) {
    return companion(LOCK_PREFIX, key);
  }

  /** The single-flight lock of a key that clients load themselves (see the client library). */
  public static String flightLockName(String key) {
    return companion(FLIGHT_PREFIX, key);
  }

  static String companion(String prefix, String key) {
    String tag = hashTag(key);
    if (tag != null) {
      return prefix + "{" + tag + "}:" + key;
    }
    if (key.indexOf('}') < 0) {
      return prefix + "{" + key + "}";
    }
    return prefix + "{" + tagForSlot(slot(key)) + "}:" + key;
  }

  /** The hash tag Redis would use for the key, or null when it hashes the whole key. */
  static String hashTag(String key) {
    int open = key.indexOf('{');
    if (open < 0) {
      return null;
    }
    int close = key.indexOf('}', open + 1);
    if (close < 0 || close == open + 1) {
      return null;
    }
    return key.substring(open + 1, close);
  }

  /** The cluster slot of a key, as Redis computes it. */
  public static int slot(String key) {
    String tag = hashTag(key);
    String hashed = tag != null ? tag : key;
    return Crc16.of(hashed.getBytes(StandardCharsets.UTF_8)) % SLOTS;
  }

  private static String tagForSlot(int slot) {
    String[] table = tagBySlot;
    if (table == null) {
      table = buildTagTable();
      tagBySlot = table;
    }
    return table[slot];
  }

  /** For each slot, the shortest decimal string that hashes to it (found once, a few ms). */
  private static String[] buildTagTable() {
    String[] table = new String[SLOTS];
    int found = 0;
    for (int candidate = 0; found < SLOTS; candidate++) {
      String text = Integer.toString(candidate);
      int slot = Crc16.of(text.getBytes(StandardCharsets.US_ASCII)) % SLOTS;
      if (table[slot] == null) {
        table[slot] = text;
        found++;
      }
    }
    return table;
  }
}
