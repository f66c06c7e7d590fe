package io.refresher.registry;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.function.LongConsumer;

/** Registers, reads, lists and removes keys, after validating every request. */
public final class Registry {

  /** Largest page a listing returns. */
  public static final int MAX_PAGE = 1000;

  private final RegistrationRepository repository;
  private final RegistrationValidator validator;
  private final InstantSource clock;

  public Registry(RegistrationRepository repository, RegistrationValidator validator, InstantSource clock) {
    this.repository = repository;
    this.validator = validator;
    this.clock = clock;
  }

  /** The outcome of {@link #register}: the stored registration and whether the key was new. */
  public record Registered(Registration registration, boolean created) {}

  /**
   * Validates and stores a registration.
   *
   * @param policy {@code "hot"}, {@code "always"}, or null for the default ({@code "hot"})
   */
  public Registered register(
      String key, String source, Map<String, Object> params, Duration ttl, String policy) {
    RefreshPolicy parsed = policy == null ? RefreshPolicy.HOT : RefreshPolicy.fromJson(policy);
    Map<String, Object> checked;
    try {
      checked = validator.validate(key, source, params, ttl);
    } catch (InvalidRegistrationException e) {
      if (parsed != null) {
        throw e;
      }
      List<FieldError> all = new java.util.ArrayList<>(e.errors());
      all.add(POLICY_RULE);
      throw new InvalidRegistrationException(all);
    }
    if (parsed == null) {
      throw new InvalidRegistrationException(List.of(POLICY_RULE));
    }
    Instant now = clock.instant();
    return repository.upsert(Registration.of(key, source, checked, ttl, now, now, parsed));
  }

  private static final FieldError POLICY_RULE =
      new FieldError("policy", "must be 'hot' (refreshed while read often, the default) or 'always'");

  public Registration get(String key) {
    return repository.find(key).orElseThrow(() -> new KeyNotFoundException(key));
  }

  public List<Registration> page(String prefix, String after, int limit) {
    if (limit < 1 || limit > MAX_PAGE) {
      throw new InvalidRegistrationException("limit", "must be between 1 and " + MAX_PAGE);
    }
    TextRules.require("prefix", prefix);
    TextRules.require("after", after);
    return repository.page(prefix == null ? "" : prefix, after == null ? "" : after, limit);
  }

  /**
   * Deletes a registration; {@code beforeCommit} runs with its generation while the deletion is
   * not yet committed, and a failure there leaves the registration in place.
   */
  public void delete(String key, LongConsumer beforeCommit) {
    if (!repository.delete(key, beforeCommit)) {
      throw new KeyNotFoundException(key);
    }
  }
}
