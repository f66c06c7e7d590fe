package io.refresher.refresh;

/**
 * Puts keys into and out of the hot set from the admin side: a key just registered with the
 * {@code hot} policy joins it (so it is refreshed for the cold-after grace even before reads are
 * counted), a deleted key leaves it.
 */
public interface HotSetMembership {

  void admit(String key, long atMillis);

  void remove(String key);

  HotSetMembership NONE =
      new HotSetMembership() {
        @Override
        public void admit(String key, long atMillis) {}

        @Override
        public void remove(String key) {}
      };
}
