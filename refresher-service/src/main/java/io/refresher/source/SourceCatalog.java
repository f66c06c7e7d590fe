package io.refresher.source;

import java.util.Collection;
import java.util.Collections;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/** The sources this service was configured with, by name. */
public final class SourceCatalog {

  private final Map<String, SourceDefinition> byName;

  public SourceCatalog(Collection<SourceDefinition> sources) {
    Map<String, SourceDefinition> map = new TreeMap<>();
    for (SourceDefinition source : sources) {
      map.put(source.name(), source);
    }
    this.byName = Collections.unmodifiableMap(map);
  }

  public Optional<SourceDefinition> find(String name) {
    return Optional.ofNullable(byName.get(name));
  }

  public Collection<SourceDefinition> all() {
    return byName.values();
  }
}
