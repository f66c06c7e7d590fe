package io.refresher.registry;

import java.util.List;
import java.util.Optional;

/**
 * Where key templates live (PostgreSQL in production). Every method throws {@link
 * RegistryUnavailableException} when the store cannot be reached (transient), and {@link
 * RegistryRefusedException} when it refuses the input itself (not worth retrying).
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

  /**
   * Every template, in name order. There are at most {@link Templates#MAX_TEMPLATES}. A stored
   * template that cannot be read is left out (and reported by the store), not a failure of all.
   */
  List<KeyTemplate> all();

  long count();
}
