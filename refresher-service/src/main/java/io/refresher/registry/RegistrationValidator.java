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
import java.util.Set;
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
    checkTtl(ttl, errors);
    Map<String, Object> converted = checkSource(sourceName, params, Set.of(), errors);
    if (!errors.isEmpty()) {
      throw new InvalidRegistrationException(errors);
    }
    return converted;
  }

  /** Adds the broken TTL rule, if any, to {@code errors}. */
  public void checkTtl(Duration ttl, List<FieldError> errors) {
    if (ttl == null) {
      errors.add(new FieldError("ttl", "is required (ISO-8601 duration such as PT5M)"));
    } else if (ttl.compareTo(limits.minTtl()) < 0 || ttl.compareTo(limits.maxTtl()) > 0) {
      errors.add(
          new FieldError("ttl", "must be between " + limits.minTtl() + " and " + limits.maxTtl()));
    }
  }

  /**
   * Checks that the source exists and that {@code params} gives exactly the parameters it declares,
   * except those named in {@code suppliedElsewhere} (a template's placeholders), which must not be
   * given. Returns the given parameters converted to their declared types; adds broken rules to
   * {@code errors}.
   */
  public Map<String, Object> checkSource(
      String sourceName, Map<String, Object> params, Set<String> suppliedElsewhere, List<FieldError> errors) {
    Map<String, Object> converted = new LinkedHashMap<>();
    Map<String, Object> given = params == null ? Map.of() : params;
    if (sourceName == null || sourceName.isBlank()) {
      errors.add(new FieldError("source", "is required"));
      return converted;
    }
    Optional<SourceDefinition> source = sources.find(sourceName);
    if (source.isEmpty()) {
      errors.add(
          new FieldError(
              "source", "must name a configured source (one of " + new TreeSet<>(sourceNames()) + ")"));
      return converted;
    }
    checkParams(source.get(), given, suppliedElsewhere, converted, errors);
    checkParamLengths(source.get(), given, errors);
    return converted;
  }

  /**
   * Adds an error for each declared parameter whose value, as given, is longer than {@link
   * RegistrationLimits#maxParamLength}, unless another rule already named it. The error states the
   * bound and the length, never the value.
   */
  private void checkParamLengths(SourceDefinition source, Map<String, Object> given, List<FieldError> errors) {
    for (String name : source.params().keySet()) {
      Object value = given.get(name);
      if (value == null || value instanceof Map || value instanceof List) {
        continue;
      }
      String text = value.toString();
      if (text.length() <= limits.maxParamLength()) {
        continue; // never more code points than chars
      }
      long length = text.codePointCount(0, text.length());
      String field = "params." + name;
      if (length > limits.maxParamLength() && errors.stream().noneMatch(error -> error.field().equals(field))) {
        errors.add(
            new FieldError(
                field, "must be at most " + limits.maxParamLength() + " characters long (it has " + length + ")"));
      }
    }
  }

  /** The source's declared parameters, by name; empty when there is no such source. */
  public Map<String, ParamType> paramsOf(String sourceName) {
    return sources.find(sourceName).map(SourceDefinition::params).orElse(Map.of());
  }

  private static void checkParams(
      SourceDefinition source,
      Map<String, Object> given,
      Set<String> suppliedElsewhere,
      Map<String, Object> converted,
      List<FieldError> errors) {
    for (Map.Entry<String, ParamType> declared : source.params().entrySet()) {
      String name = declared.getKey();
      if (suppliedElsewhere.contains(name)) {
        if (given.containsKey(name)) {
          errors.add(new FieldError("params." + name, "is taken from the pattern's {" + name + "} and must not be given"));
        }
        continue;
      }
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
      if (value instanceof String text && !TextRules.storable(text)) {
        // whatever the declared type: a number is not parsed from text the store cannot hold
        errors.add(new FieldError("params." + name, TextRules.RULE));
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
