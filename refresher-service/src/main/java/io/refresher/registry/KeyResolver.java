package io.refresher.registry;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.time.InstantSource;
import java.util.concurrent.atomic.AtomicLong;

/**
 * How a key is computed: its own registration first; else the first template whose pattern it
 * matches. One registry query per batch; template matching runs in memory.
 */
public final class KeyResolver implements RegistrationLookup {

  /** Matches keys against the templates (in memory). */
  public interface TemplateMatcher {
    Map<String, Registration> resolveAll(Collection<String> keys);

    /** Re-reads the templates (they change through any replica). */
    default void reload() {}
  }

  /** Rechecks reload the templates at most this often, however many orphans turn up. */
  private static final long RELOAD_AT_MOST_EVERY_MILLIS = 1000;

  private final RegistrationRepository registrations;
  private final TemplateMatcher templates;
  private final InstantSource clock;
  private final AtomicLong lastReloadMillis = new AtomicLong();

  public KeyResolver(RegistrationRepository registrations, TemplateMatcher templates, InstantSource clock) {
    this.registrations = registrations;
    this.templates = templates;
    this.clock = clock;
  }

  @Override
  public Map<String, Registration> findAll(Collection<String> keys) {
    if (keys.isEmpty()) {
      return Map.of();
    }
    Map<String, Registration> found = new HashMap<>(registrations.findAll(keys));
    if (found.size() < keys.size()) {
      List<String> rest = new ArrayList<>(keys.size() - found.size());
      for (String key : keys) {
        if (!found.containsKey(key)) {
          rest.add(key);
        }
      }
      found.putAll(templates.resolveAll(rest));
    }
    return found;
  }

  @Override
  public Map<String, Registration> recheck(Collection<String> keys) {
    long now = clock.millis();
    long last = lastReloadMillis.get();
    if (now - last >= RELOAD_AT_MOST_EVERY_MILLIS && lastReloadMillis.compareAndSet(last, now)) {
      templates.reload();
    }
    return findAll(keys);
  }

  public Optional<Registration> find(String key) {
    return Optional.ofNullable(findAll(List.of(key)).get(key));
  }
}
