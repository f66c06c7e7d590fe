package io.refresher.registry;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;

/** Templates in a map, for tests of the domain: keeps createdAt on replace, pages in name order. */
class InMemoryTemplateRepository implements TemplateRepository {

  private final TreeMap<String, KeyTemplate> byName = new TreeMap<>();
  int upserts;

  @Override
  public synchronized Templates.Stored upsert(KeyTemplate template) {
    upserts++;
    KeyTemplate previous = byName.get(template.name());
    KeyTemplate stored =
        previous == null
            ? template
            : new KeyTemplate(
                template.name(),
                template.pattern(),
                template.source(),
                template.params(),
                template.ttl(),
                previous.createdAt(),
                template.updatedAt());
    byName.put(template.name(), stored);
    return new Templates.Stored(stored, previous == null);
  }

  @Override
  public synchronized Optional<KeyTemplate> find(String name) {
    return Optional.ofNullable(byName.get(name));
  }

  @Override
  public synchronized Optional<KeyTemplate> findByPattern(String pattern) {
    return byName.values().stream().filter(template -> template.pattern().text().equals(pattern)).findFirst();
  }

  @Override
  public synchronized List<KeyTemplate> page(String after, int limit) {
    return byName.tailMap(after, false).values().stream().limit(limit).toList();
  }

  @Override
  public synchronized boolean delete(String name) {
    return byName.remove(name) != null;
  }

  @Override
  public synchronized List<KeyTemplate> all() {
    return new ArrayList<>(byName.values());
  }

  @Override
  public synchronized long count() {
    return byName.size();
  }
}
