package io.refresher.registry;

import java.util.List;
import java.util.Optional;

/**
 * Where key templates live (PostgreSQL in production). Every method throws {@link
 * RegistryUnavailableException} when the store cannot be reached.
 */
public interface TemplateRepository {

  /**
   * Inserts or replaces by name. A replacement keeps the original {@code createdAt}; the returned
   * template is the stored one.
   *
   * @throws InvalidRegistrationException (field {@code pattern}) when another template holds the
   *     pattern: the store enforces what {@link Templates} checks, against concurrent requests
   */
  Templates.Stored upsert(KeyTemplate template);

  Optional<KeyTemplate> find(String name);

  /** The template whose pattern is exactly {@code pattern}, if any. */
  Optional<KeyTemplate> findByPattern(String pattern);

  /** Up to {@code limit} templates in name order (byte order), after {@code after}. */
  List<KeyTemplate> page(String after, int limit);

  /** Returns true when a template was deleted. */
  boolean delete(String name);

  /** Every template, in name order. There are at most {@link Templates#MAX_TEMPLATES}. */
  List<KeyTemplate> all();

  long count();
}
