package io.refresher.registry;

import io.refresher.source.SourceCatalog;
import io.refresher.source.SourceDefinition;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Registers, reads, lists and removes key templates, after validating every request; each change
 * is made visible to this replica's {@link TemplateCatalog} before the call returns.
 */
public final class Templates {

  private static final Logger LOG = LoggerFactory.getLogger(Templates.class);

  /** Most templates the service holds: every key read is matched against them. */
  public static final int MAX_TEMPLATES = 1000;

  /** Largest page a listing returns. */
  public static final int MAX_PAGE = 1000;

  private final TemplateRepository repository;
  private final RegistrationValidator validator;
  private final SourceCatalog sources;
  private final TemplateCatalog catalog;
  private final InstantSource clock;

  public Templates(
      TemplateRepository repository,
      RegistrationValidator validator,
      SourceCatalog sources,
      TemplateCatalog catalog,
      InstantSource clock) {
    this.repository = repository;
    this.validator = validator;
    this.sources = sources;
    this.catalog = catalog;
    this.clock = clock;
  }

  /** The outcome of {@link #put}: the stored template and whether the name was new. */
  public record Stored(KeyTemplate template, boolean created) {}

  /** The rule broken when another template already has the pattern. */
  public static String patternInUse(String otherTemplate) {
    return "is already the pattern of template '" + otherTemplate + "'";
  }

  /**
   * Validates and stores a template under {@code name}, replacing one of that name.
   *
   * @param params the fixed parameters: those of the source that the pattern does not supply
   * @throws InvalidRegistrationException naming every broken rule; nothing is changed
   */
  public Stored put(String name, String pattern, String source, Map<String, Object> params, Duration ttl) {
    List<FieldError> errors = new ArrayList<>();
    TemplateNames.violation(name).ifPresent(rule -> errors.add(new FieldError("name", rule)));
    TemplatePattern.Parsed parsed = TemplatePattern.check(pattern);
    errors.addAll(parsed.errors());
    checkPlaceholdersAreParameters(parsed.placeholders(), source, errors);
    Map<String, Object> fixed = validator.checkSource(source, params, fromPattern(parsed, source, params), errors);
    validator.checkTtl(ttl, errors);
    checkAgainstStoredTemplates(name, parsed.pattern(), errors);
    if (!errors.isEmpty()) {
      throw new InvalidRegistrationException(errors);
    }
    Instant now = clock.instant();
    Stored stored = repository.upsert(new KeyTemplate(name, parsed.pattern(), source, fixed, ttl, now, now));
    showInCatalog();
    return stored;
  }

  public KeyTemplate get(String name) {
    return repository.find(name).orElseThrow(() -> new TemplateNotFoundException(name));
  }

  /** Up to {@code limit} templates in name order, after {@code after} (null or empty: from the start). */
  public List<KeyTemplate> page(String after, int limit) {
    if (limit < 1 || limit > MAX_PAGE) {
      throw new InvalidRegistrationException("limit", "must be between 1 and " + MAX_PAGE);
    }
    TextRules.require("after", after);
    return repository.page(after == null ? "" : after, limit);
  }

  /**
   * Removes a template. Its keys are no longer resolved, hence no longer refreshed; their values
   * expire on their own.
   */
  public void delete(String name) {
    if (!repository.delete(name)) {
      throw new TemplateNotFoundException(name);
    }
    showInCatalog();
  }

  /**
   * Makes a stored change visible to key resolution on this replica at once. Should the store fail
   * right after the change, the change stands (the request succeeded) and the periodic reload
   * catches up.
   */
  private void showInCatalog() {
    try {
      catalog.reload();
    } catch (RuntimeException e) {
      LOG.warn(
          "template change stored, but reloading the template catalog failed ({}); the next periodic reload applies it",
          e.getMessage());
    }
  }

  private void checkPlaceholdersAreParameters(Set<String> placeholders, String source, List<FieldError> errors) {
    Optional<SourceDefinition> definition = source == null ? Optional.empty() : sources.find(source);
    if (definition.isEmpty()) {
      return; // the source's own error says it all
    }
    Set<String> declared = definition.get().params().keySet();
    for (String placeholder : placeholders) {
      if (!declared.contains(placeholder)) {
        errors.add(
            new FieldError(
                "pattern",
                "placeholder {" + placeholder + "} is not a parameter of source '" + source + "' (it takes " + declared + ")"));
      }
    }
  }

  /**
   * The parameters the key supplies, which {@code params} must not give. When the pattern is
   * broken its placeholders are not all known, so a parameter not given might be meant for one:
   * "required" would then be a guess, and is not reported.
   */
  private Set<String> fromPattern(TemplatePattern.Parsed parsed, String source, Map<String, Object> params) {
    Set<String> supplied = new LinkedHashSet<>(parsed.placeholders());
    if (parsed.pattern() == null && source != null) {
      Set<String> given = params == null ? Set.of() : params.keySet();
      validator.paramsOf(source).keySet().stream().filter(name -> !given.contains(name)).forEach(supplied::add);
    }
    return supplied;
  }

  /** The rules that need the stored templates: the pattern is not another's, and the count stays bounded. */
  private void checkAgainstStoredTemplates(String name, TemplatePattern pattern, List<FieldError> errors) {
    if (pattern != null) {
      repository
          .findByPattern(pattern.text())
          .filter(other -> !other.name().equals(name))
          .ifPresent(other -> errors.add(new FieldError("pattern", patternInUse(other.name()))));
    }
    boolean validName = TemplateNames.violation(name).isEmpty();
    if (validName && repository.find(name).isEmpty() && repository.count() >= MAX_TEMPLATES) {
      errors.add(
          new FieldError(
              "name",
              "cannot be added: there are already " + MAX_TEMPLATES + " templates, the most allowed; delete one first"));
    }
  }
}
