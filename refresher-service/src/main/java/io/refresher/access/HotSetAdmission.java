package io.refresher.access;

import io.refresher.refresh.HotSetMembership;
import java.util.List;
import java.util.Map;

/**
 * Admin-side hot-set changes: a key registered with the {@code hot} policy joins, a deleted key
 * leaves. A new key's grace starts when its first reads can have been counted (the second being
 * read, the settle time and one sampling), so that even a short {@code coldAfter} does not demote it
 * before its reads arrive.
 */
public final class HotSetAdmission implements HotSetMembership {

  private static final long ONE_SECOND_OF_READS = 1000;

  private final HotSetStore store;
  private final long countingDelayMillis;

  public HotSetAdmission(HotSetStore store, AccessSettings settings) {
    this.store = store;
    this.countingDelayMillis =
        ONE_SECOND_OF_READS + settings.settle().toMillis() + settings.sampleInterval().toMillis();
  }

  /**
   * How long after its registration a {@code hot} key is kept without reads: the counting delay
   * plus {@code coldAfter}. A refill after a data loss keeps the keys registered within it.
   */
  public static java.time.Duration registrationGrace(AccessSettings settings) {
    return settings.coldAfter()
        .plusMillis(ONE_SECOND_OF_READS + settings.settle().toMillis() + settings.sampleInterval().toMillis());
  }

  @Override
  public void admit(String key, long atMillis) {
    store.update(Map.of(key, atMillis + countingDelayMillis), List.of());
  }

  @Override
  public void remove(String key) {
    store.update(Map.of(), List.of(key));
  }
}
