package io.refresher.redis;

/**
 * Redis keys of popularity and the hot set. They share the hash tag {@code {refresher-hot}}, so on
 * a Redis Cluster they sit in one slot and one script may touch them together.
 */
final class HotKeyNames {

  /** The scores, with the landmark and cursor they go with ({@link RedisPopularityStore}). */
  static final String POPULARITY = "refresher:popularity:{refresher-hot}";
  /** The record of a consumption that needs more than one script call, while it runs. */
  static final String POPULARITY_CONSUMING = "refresher:popularity:{refresher-hot}:consuming";
  /** Where versions before the landmark moved into the scores kept landmark and cursor: adopted once. */
  static final String LEGACY_POPULARITY_STATE = "refresher:popularity:{refresher-hot}:state";
  static final String HOT = "refresher:hot:{refresher-hot}";
  /** The hottest keys that nothing covers, by reads/s, as the last sampling found them. */
  static final String UNCOVERED = "refresher:hot:{refresher-hot}:uncovered";

  private HotKeyNames() {}
}
