package io.refresher.cache;

/**
 * Redis keys of popularity and the hot set. They share the hash tag {@code {refresher-hot}}, so on
 * a Redis Cluster they sit in one slot and one script may touch them together.
 */
final class HotKeyNames {

  static final String POPULARITY = "refresher:popularity:{refresher-hot}";
  static final String POPULARITY_STATE = "refresher:popularity:{refresher-hot}:state";
  static final String HOT = "refresher:hot:{refresher-hot}";

  private HotKeyNames() {}
}
