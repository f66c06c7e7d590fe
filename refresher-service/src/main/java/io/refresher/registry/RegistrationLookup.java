package io.refresher.registry;

import java.util.Collection;
import java.util.Map;

/**
 * Finds how keys are computed: by their own registration or, for keys a template covers, by the
 * template. Throws {@link RegistryUnavailableException} when the registry cannot be reached.
 */
public interface RegistrationLookup {

  /** The registrations of the given keys that have one, by key. */
  Map<String, Registration> findAll(Collection<String> keys);

  /**
   * Like {@link #findAll}, for keys that were just found to have no registration and are about to
   * be dropped: an implementation with caches refreshes them first, so that a template created a
   * moment ago through another replica is not taken for a deleted one.
   */
  default Map<String, Registration> recheck(Collection<String> keys) {
    return findAll(keys);
  }
}
