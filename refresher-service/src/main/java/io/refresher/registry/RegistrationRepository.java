package io.refresher.registry;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.LongConsumer;

/**
 * Where registrations live (PostgreSQL in production). Every method throws {@link
 * RegistryUnavailableException} when the store cannot be reached (transient), and {@link
 * RegistryRefusedException} when it refuses the input itself (not worth retrying).
 */
public interface RegistrationRepository extends RegistrationLookup {

  /**
   * Inserts or replaces. A replacement keeps the original {@code createdAt}; the returned
   * registration is the stored one.
   */
  Registry.Registered upsert(Registration registration);

  Optional<Registration> find(String key);

  /** The registrations of the given keys that exist, by key. One query, for a whole batch. */
  @Override
  Map<String, Registration> findAll(Collection<String> keys);

  /** Up to {@code limit} registrations in key order (byte order), after {@code after}, with a prefix. */
  List<Registration> page(String prefix, String after, int limit);

  /**
   * Deletes a registration in a transaction that commits only after {@code beforeCommit} returned:
   * when it throws, nothing is deleted and the exception propagates.
   *
   * @param beforeCommit receives the deleted registration's generation
   * @return true when a registration was deleted
   */
  boolean delete(String key, LongConsumer beforeCommit);

  /**
   * Up to {@code limit} keys with the given policy after {@code after} in key order; for sweeping
   * registrations.
   */
  List<String> keysAfter(String after, int limit, RefreshPolicy policy);

  /**
   * Up to {@code limit} keys registered (or replaced) with the {@code hot} policy at or after
   * {@code since}, newest first: the keys still inside their registration grace, which a refill
   * after a data loss keeps like the popular ones.
   */
  List<String> hotKeysRegisteredSince(java.time.Instant since, int limit);

  long count();

  /** How many keys are registered with each source (sources without any are left out). */
  Map<String, Long> countBySource();
}
