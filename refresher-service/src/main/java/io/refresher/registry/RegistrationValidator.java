package io.refresher.registry;

import io.refresher.source.ParamType;
import io.refresher.source.SourceCatalog;
import io.refresher.source.SourceDefinition;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;

/**
 * Checks a registration request against the key rules, the configured sources and the TTL bounds,
 * collecting every broken rule so an operator can fix a request in one go.
 */
public final class RegistrationValidator {

  private final SourceCatalog sources;
  private final RegistrationLimits limits;

  public RegistrationValidator(SourceCatalog sources, RegistrationLimits limits) {
    this.sources = sources;
    this.limits = limits;
  }

  /**
   * Returns the parameters converted to the types their source declares.
   *
   * @throws InvalidRegistrationException naming every broken rule
   */
  public Map<String, Object> validate(
      String key, String sourceName, Map<String, Object> params, Duration ttl) {
    List<FieldError> errors = new ArrayList<>();
    KeyRules.violation(key).ifPresent(rule -> errors.add(new FieldError("key", rule)));

    if (ttl == null) {
      errors.add(new FieldError("ttl", "is required (ISO-8601 duration such as PT5M)"));
    } else if (ttl.compareTo(limits.minTtl()) < 0 || ttl.compareTo(limits.maxTtl()) > 0) {
      errors.add(
          new FieldError("ttl", "must be between " + limits.minTtl() + " and " + limits.maxTtl()));
    }

    Map<String, Object> converted = new LinkedHashMap<>();
    Map<String, Object> given = params == null ? Map.of() : params;
    if (sourceName == null || sourceName.isBlank()) {
      errors.add(new FieldError("source", "is required"));
    } else {
      Optional<SourceDefinition> source = sources.find(sourceName);
      if (source.isEmpty()) {
        errors.add(
            new FieldError(
                "source",
                "must name a configured source (one of " + new TreeSet<>(sourceNames()) + ")"));
      } else {
        checkParams(source.get(), given, converted, errors);
      }
    }
    if (!errors.isEmpty()) {
      throw new InvalidRegistrationException(errors);
    }
    return converted;
  }

  private static void checkParams(
      SourceDefinition source,
      Map<String, Object> given,
      Map<String, Object> converted,
      List<FieldError> errors) {
    for (Map.Entry<String, ParamType> declared : source.params().entrySet()) {
      String name = declared.getKey();
      if (!given.containsKey(name)) {
        errors.add(
            new FieldError(
                "params." + name,
                "is required by source '" + source.name() + "' (" + declared.getValue().description() + ")"));
        continue;
      }
      Object value = given.get(name);
      if (value instanceof Map || value instanceof List) {
        errors.add(new FieldError("params." + name, "must be " + declared.getValue().description()));
        continue;
      }
      try {
        converted.put(name, declared.getValue().convert(value));
      } catch (IllegalArgumentException e) {
        errors.add(new FieldError("params." + name, e.getMessage()));
      }
    }
    for (String name : new TreeSet<>(given.keySet())) {
      if (!source.params().containsKey(name)) {
        errors.add(
            new FieldError(
                "params." + name,
                "is not a parameter of source '" + source.name() + "' (it takes " + source.params().keySet() + ")"));
      }
    }
  }

  private List<String> sourceNames() {
    List<String> names = new ArrayList<>();
    sources.all().forEach(source -> names.add(source.name()));
    return names;
  }
}
