package io.refresher.refresh;

import io.refresher.registry.RefreshPolicy;
import io.refresher.registry.RegistrationRepository;
import java.time.InstantSource;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes sure every registered key is in the due index. PostgreSQL is the source of truth for
 * registrations; the due index lives in Redis and is lost with Redis's data, or misses a key when
 * Redis was down at registration time. A sweep pages through all registrations in key order and
 * adds the missing keys as due now; entries that exist are left alone, so a sweep over a healthy
 * index changes nothing.
 *
 * <p>Cost: one query and one Redis call per page; memory: one page.
 */
public final class DueIndexReconciler {

  private static final Logger LOG = LoggerFactory.getLogger(DueIndexReconciler.class);
  private static final int PAGE = 1000;

  private final RegistrationRepository registrations;
  private final DueIndex index;
  private final InstantSource clock;

  public DueIndexReconciler(RegistrationRepository registrations, DueIndex index, InstantSource clock) {
    this.registrations = registrations;
    this.index = index;
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
    if (added > 0) {
      LOG.info("due index repaired: {} of {} registered keys were missing and are due now", added, seen);
    } else {
      LOG.debug("due index checked: all {} registered keys present", seen);
    }
    return added;
  }
}
