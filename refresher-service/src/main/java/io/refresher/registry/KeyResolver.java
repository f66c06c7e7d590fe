package io.refresher.registry;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * How a key is computed: its own registration first; else the first template whose pattern it
 * matches. One registry query per batch; template matching runs in memory.
 */
public final class KeyResolver implements RegistrationLookup {

  /** Matches keys against the templates (in memory). */
  public interface TemplateMatcher {
    Map<String, Registration> resolveAll(Collection<String> keys);
  }

  private final RegistrationRepository registrations;
  private final TemplateMatcher templates;

  public KeyResolver(RegistrationRepository registrations, TemplateMatcher templates) {
    this.registrations = registrations;
    this.templates = templates;
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

  public Optional<Registration> find(String key) {
    return Optional.ofNullable(findAll(List.of(key)).get(key));
  }
}
