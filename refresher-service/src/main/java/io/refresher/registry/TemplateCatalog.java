package io.refresher.registry;

import io.refresher.source.ParamType;
import io.refresher.source.SourceCatalog;
import io.refresher.source.SourceDefinition;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The templates of this replica, compiled, for resolving keys that are not registered by
 * themselves: a key belongs to the first template, in order of precedence, whose pattern matches it
 * and whose placeholder values have the types the source declares ({@code product:abc} is not a
 * key of {@code product:{id}} when {@code id} is a whole number, and may belong to a later
 * template). Precedence: more literal characters first (the more specific pattern), then name.
 *
 * <p>Keys arrive at the rate applications read them, so resolution reads one immutable snapshot
 * without locking, and runs a template's matcher only when the key starts with the template's
 * literal prefix. {@link #reload()} replaces the snapshot from the repository: after every change
 * made through this replica, and periodically for changes made through others.
 */
public final class TemplateCatalog implements KeyResolver.TemplateMatcher {

  private static final Logger LOG = LoggerFactory.getLogger(TemplateCatalog.class);

  /** Precedence: the more specific pattern first; the name breaks ties so that the order is stable. */
  static final Comparator<KeyTemplate> PRECEDENCE =
      Comparator.comparingInt((KeyTemplate template) -> template.pattern().literalLength())
          .reversed()
          .thenComparing(KeyTemplate::name);

  private final TemplateRepository repository;
  private final SourceCatalog sources;
  private volatile Snapshot snapshot = Snapshot.of(List.of());
  private Set<String> lastSkipped = Set.of();

  public TemplateCatalog(TemplateRepository repository, SourceCatalog sources) {
    this.repository = repository;
    this.sources = sources;
  }

  /**
   * Re-reads every template (at most {@link Templates#MAX_TEMPLATES}). Serialised, so that a
   * reload that read the store later is never replaced by one that read it earlier.
   *
   * @throws RegistryUnavailableException when the store cannot be read; the previous snapshot stays
   */
  @Override
  public synchronized void reload() {
    List<KeyTemplate> templates = new ArrayList<>(repository.all());
    templates.sort(PRECEDENCE);
    List<Compiled> compiled = new ArrayList<>();
    Set<String> skipped = new LinkedHashSet<>();
    for (KeyTemplate template : templates) {
      compile(template, compiled.size()).ifPresentOrElse(compiled::add, () -> skipped.add(template.name()));
    }
    snapshot = Snapshot.of(compiled);
    lastSkipped = skipped;
  }

  /** The registration {@code key} derives from a template, if any: policy hot, named after its template. */
  public Optional<Registration> resolve(String key) {
    return snapshot.resolve(key);
  }

  /** The registrations of those of {@code keys} that derive from a template, by key; one snapshot for the batch. */
  @Override
  public Map<String, Registration> resolveAll(Collection<String> keys) {
    Snapshot current = snapshot;
    Map<String, Registration> resolved = new HashMap<>();
    for (String key : keys) {
      current.resolve(key).ifPresent(registration -> resolved.put(key, registration));
    }
    return resolved;
  }

  /** The templates keys are resolved against, in order of precedence. */
  public List<KeyTemplate> templates() {
    return snapshot.templates();
  }

  /**
   * Prepares a template for matching: the types of its placeholders and fixed parameters, from its
   * source. A template whose source has been removed from, or changed in, the configuration since
   * it was stored cannot compute its keys; it is left out (and logged once) until it is fixed.
   */
  private Optional<Compiled> compile(KeyTemplate template, int rank) {
    Optional<SourceDefinition> source = sources.find(template.source());
    if (source.isEmpty()) {
      warnOnce(template, "its source '" + template.source() + "' is not configured");
      return Optional.empty();
    }
    Map<String, ParamType> declared = source.get().params();
    Set<String> supplied = new LinkedHashSet<>(template.pattern().placeholders());
    supplied.addAll(template.params().keySet());
    if (!supplied.equals(declared.keySet())) {
      warnOnce(
          template,
          "source '" + template.source() + "' takes " + declared.keySet() + " but the template supplies " + supplied);
      return Optional.empty();
    }
    Map<String, Object> fixed = new LinkedHashMap<>();
    for (Map.Entry<String, Object> param : template.params().entrySet()) {
      try {
        // stored as JSON: a whole number may come back as an Integer; bind what the source declares
        fixed.put(param.getKey(), declared.get(param.getKey()).convert(param.getValue()));
      } catch (IllegalArgumentException e) {
        warnOnce(template, "its parameter " + param.getKey() + " " + e.getMessage());
        return Optional.empty();
      }
    }
    return Optional.of(new Compiled(template, rank, declared, fixed));
  }

  private void warnOnce(KeyTemplate template, String why) {
    if (!lastSkipped.contains(template.name())) {
      LOG.warn("template '{}' is ignored, its keys are not refreshed: {}", template.name(), why);
    }
  }

  /** A template ready to resolve keys. */
  private record Compiled(KeyTemplate template, int rank, Map<String, ParamType> types, Map<String, Object> fixed) {

    Optional<Registration> resolve(String key) {
      Optional<Map<String, String>> values = template.pattern().match(key);
      if (values.isEmpty()) {
        return Optional.empty();
      }
      Map<String, Object> params = new LinkedHashMap<>();
      for (Map.Entry<String, ParamType> param : types.entrySet()) {
        String value = values.get().get(param.getKey());
        if (value == null) {
          params.put(param.getKey(), fixed.get(param.getKey()));
          continue;
        }
        try {
          params.put(param.getKey(), param.getValue().convert(value));
        } catch (IllegalArgumentException e) {
          return Optional.empty();
        }
      }
      return Optional.of(
          new Registration(
              key,
              template.source(),
              params,
              template.ttl(),
              template.createdAt(),
              template.updatedAt(),
              RefreshPolicy.HOT,
              template.name()));
    }
  }

  /** One immutable generation of the catalog. */
  private record Snapshot(List<Compiled> ordered, PrefixIndex index) {

    static Snapshot of(List<Compiled> ordered) {
      PrefixIndex index = new PrefixIndex();
      ordered.forEach(compiled -> index.add(compiled.template().pattern().literalPrefix(), compiled));
      return new Snapshot(List.copyOf(ordered), index);
    }

    Optional<Registration> resolve(String key) {
      if (key == null) {
        return Optional.empty();
      }
      List<Compiled> candidates = index.candidates(key);
      if (candidates.isEmpty() || KeyRules.violation(key).isPresent()) {
        return Optional.empty();
      }
      for (Compiled candidate : candidates) {
        Optional<Registration> registration = candidate.resolve(key);
        if (registration.isPresent()) {
          return registration;
        }
      }
      return Optional.empty();
    }

    List<KeyTemplate> templates() {
      return ordered.stream().map(Compiled::template).toList();
    }
  }

  /**
   * Templates by literal prefix, as a trie of characters: the candidates for a key are found by
   * walking the key's first characters, not by trying every template.
   */
  private static final class PrefixIndex {
    private final Node root = new Node();

    void add(String prefix, Compiled compiled) {
      Node node = root;
      for (int i = 0; i < prefix.length(); i++) {
        node = node.children.computeIfAbsent(prefix.charAt(i), c -> new Node());
      }
      node.templates.add(compiled);
    }

    /** The templates whose literal prefix starts {@code key}, in order of precedence. */
    List<Compiled> candidates(String key) {
      List<Compiled> found = new ArrayList<>();
      int sources = 0;
      Node node = root;
      for (int i = 0; node != null; i++) {
        if (!node.templates.isEmpty()) {
          found.addAll(node.templates);
          sources++;
        }
        node = i < key.length() ? node.children.get(key.charAt(i)) : null;
      }
      if (sources > 1) {
        found.sort(Comparator.comparingInt(Compiled::rank));
      }
      return found;
    }

    private static final class Node {
      private final Map<Character, Node> children = new HashMap<>();
      private final List<Compiled> templates = new ArrayList<>(1);
    }
  }
}
