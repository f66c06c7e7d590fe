package io.refresher.refresh;

import io.refresher.registry.RefreshPolicy;
import io.refresher.registry.RegistrationRepository;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes sure every key that must be kept fresh is in the due index: keys registered with the
 * {@code always} policy, and the members of the hot set. PostgreSQL is the source of truth for
 * registrations; the due index lives in Redis and is lost with Redis's data, or misses a key when
 * Redis was down at registration time. A sweep pages through the {@code always} registrations in
 * key order, then the hot set, and adds the missing keys as due now; entries that exist are left
 * alone, so a sweep over a healthy index changes nothing. (A hot-set member nothing covers any more
 * is dropped by the dispatcher when it finds no registration.)
 *
 * <p>Cost: one query and one Redis call per page; memory: one page.
 */
public final class DueIndexReconciler {

  private static final Logger LOG = LoggerFactory.getLogger(DueIndexReconciler.class);
  private static final int PAGE = 1000;

  private final RegistrationRepository registrations;
  private final DueIndex index;
  private final Supplier<Collection<String>> hotSet;
  private final InstantSource clock;

  public DueIndexReconciler(
      RegistrationRepository registrations,
      DueIndex index,
      Supplier<Collection<String>> hotSet,
      InstantSource clock) {
    this.registrations = registrations;
    this.index = index;
    this.hotSet = hotSet;
    this.clock = clock;
  }

  /** Returns how many keys were missing and added. */
  public int reconcile() {
    int added = 0;
    int seen = 0;
    String after = "";
    while (true) {
      List<String> keys = registrations.keysAfter(after, PAGE, RefreshPolicy.ALWAYS);
      if (keys.isEmpty()) {
        break;
      }
      seen += keys.size();
      added += index.addMissing(keys, clock.millis());
      after = keys.get(keys.size() - 1);
      if (keys.size() < PAGE) {
        break;
      }
    }
    List<String> hot = new ArrayList<>(hotSet.get());
    for (int from = 0; from < hot.size(); from += PAGE) {
      List<String> page = hot.subList(from, Math.min(hot.size(), from + PAGE));
      seen += page.size();
      added += index.addMissing(page, clock.millis());
    }
    if (added > 0) {
      LOG.info("due index repaired: {} of {} always-registered and hot keys were missing and are due now", added, seen);
    } else {
      LOG.debug("due index checked: all {} always-registered and hot keys present", seen);
    }
    return added;
  }
}
