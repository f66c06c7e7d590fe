package io.refresher.persistence;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.refresher.registry.RefreshPolicy;
import io.refresher.registry.Registration;
import io.refresher.registry.RegistrationRepository;
import io.refresher.registry.Registry;
import io.refresher.failure.RegistryUnavailableException;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.JdbiException;
import org.jdbi.v3.core.statement.StatementContext;

/** Registrations in PostgreSQL ({@code refresher_key}), with an audit row for every change. */
public final class JdbiRegistrationRepository implements RegistrationRepository {

  private static final TypeReference<Map<String, Object>> PARAMS = new TypeReference<>() {};
  private static final String COLUMNS =
      "key, source, params::text AS params, ttl_ms, policy, created_at, updated_at, generation";

  private final Jdbi jdbi;
  private final ObjectMapper json;

  public JdbiRegistrationRepository(Jdbi jdbi, ObjectMapper json) {
    this.jdbi = jdbi;
    this.json = json;
  }

  @Override
  public Registry.Registered upsert(Registration registration) {
    String params = toJson(registration.params());
    return call(
        () ->
            jdbi.inTransaction(
                handle -> {
                  Registry.Registered stored =
                      handle
                          .createQuery(
                              "INSERT INTO refresher_key (key, source, params, ttl_ms, policy, created_at, updated_at) "
                                  + "VALUES (:key, :source, CAST(:params AS jsonb), :ttl, :policy, :now, :now) "
                                  + "ON CONFLICT (key) DO UPDATE SET source = EXCLUDED.source, "
                                  + "params = EXCLUDED.params, ttl_ms = EXCLUDED.ttl_ms, policy = EXCLUDED.policy, "
                                  + "updated_at = EXCLUDED.updated_at, generation = nextval('refresher_generation') "
                                  + "RETURNING "
                                  + COLUMNS
                                  + ", (xmax = 0) AS inserted")
                          .bind("key", registration.key())
                          .bind("source", registration.source())
                          .bind("params", params)
                          .bind("ttl", registration.ttl().toMillis())
                          .bind("policy", registration.policy().jsonName())
                          .bind("now", Timestamp.from(registration.updatedAt()))
                          .map((rs, ctx) -> new Registry.Registered(map(rs), rs.getBoolean("inserted")))
                          .one();
                  ChangeRows.insert(
                      handle,
                      stored.created() ? "register" : "replace",
                      registration.key(),
                      toJson(
                          Map.of(
                              "source", registration.source(),
                              "params", registration.params(),
                              "ttl", registration.ttl().toString(),
                              "policy", registration.policy().jsonName())));
                  return stored;
                }));
  }

  @Override
  public Optional<Registration> find(String key) {
    return call(
        () ->
            jdbi.withHandle(
                handle ->
                    handle
                        .createQuery("SELECT " + COLUMNS + " FROM refresher_key WHERE key = :key")
                        .bind("key", key)
                        .map(this::mapRow)
                        .findOne()));
  }

  @Override
  public Map<String, Registration> findAll(Collection<String> keys) {
    if (keys.isEmpty()) {
      return Map.of();
    }
    String[] array = keys.toArray(String[]::new);
    return call(
        () ->
            jdbi.withHandle(
                handle -> {
                  Map<String, Registration> found = new HashMap<>();
                  handle
                      .createQuery("SELECT " + COLUMNS + " FROM refresher_key WHERE key = ANY(:keys)")
                      .bind("keys", array)
                      .map(this::mapRow)
                      .forEach(registration -> found.put(registration.key(), registration));
                  return found;
                }));
  }

  @Override
  public List<Registration> page(String prefix, String after, int limit) {
    String pattern = escapeLike(prefix) + "%";
    return call(
        () ->
            jdbi.withHandle(
                handle ->
                    handle
                        .createQuery(
                            "SELECT " + COLUMNS + " FROM refresher_key "
                                + "WHERE key > :after AND key LIKE :pattern ESCAPE '\\' "
                                + "ORDER BY key LIMIT :limit")
                        .bind("after", after)
                        .bind("pattern", pattern)
                        .bind("limit", limit)
                        .map(this::mapRow)
                        .list()));
  }

  @Override
  public boolean delete(String key, java.util.function.LongConsumer beforeCommit) {
    return call(
        () ->
            jdbi.inTransaction(
                handle -> {
                  Optional<Long> deleted =
                      handle
                          .createQuery("DELETE FROM refresher_key WHERE key = :key RETURNING generation")
                          .bind("key", key)
                          .mapTo(Long.class)
                          .findOne();
                  if (deleted.isEmpty()) {
                    return false;
                  }
                  ChangeRows.insert(handle, "delete", key, null);
                  // The row stays locked until commit: a concurrent replace waits, and when the
                  // hook fails the registration is still there.
                  beforeCommit.accept(deleted.get());
                  return true;
                }));
  }

  @Override
  public List<String> keysAfter(String after, int limit, RefreshPolicy policy) {
    return call(
        () ->
            jdbi.withHandle(
                handle ->
                    handle
                        .createQuery(
                            "SELECT key FROM refresher_key WHERE policy = :policy AND key > :after ORDER BY key LIMIT :limit")
                        .bind("policy", policy.jsonName())
                        .bind("after", after)
                        .bind("limit", limit)
                        .mapTo(String.class)
                        .list()));
  }

  @Override
  public List<String> hotKeysRegisteredSince(java.time.Instant since, int limit) {
    return call(
        () ->
            jdbi.withHandle(
                handle ->
                    handle
                        .createQuery(
                            "SELECT key FROM refresher_key WHERE policy = :policy AND updated_at >= :since"
                                + " ORDER BY updated_at DESC LIMIT :limit")
                        .bind("policy", RefreshPolicy.HOT.jsonName())
                        .bind("since", Timestamp.from(since))
                        .bind("limit", limit)
                        .mapTo(String.class)
                        .list()));
  }

  @Override
  public long count() {
    return call(
        () -> jdbi.withHandle(handle -> handle.createQuery("SELECT count(*) FROM refresher_key").mapTo(Long.class).one()));
  }

  @Override
  public Map<String, Long> countBySource() {
    return call(
        () ->
            jdbi.withHandle(
                handle -> {
                  Map<String, Long> counts = new java.util.TreeMap<>();
                  handle.createQuery("SELECT source, count(*) AS keys FROM refresher_key GROUP BY source")
                      .map((rs, ctx) -> Map.entry(rs.getString("source"), rs.getLong("keys")))
                      .forEach(entry -> counts.put(entry.getKey(), entry.getValue()));
                  return counts;
                }));
  }

  private Registration mapRow(ResultSet rs, StatementContext ctx) throws SQLException {
    return map(rs);
  }

  private Registration map(ResultSet rs) throws SQLException {
    Map<String, Object> params;
    try {
      params = json.readValue(rs.getString("params"), PARAMS);
    } catch (JsonProcessingException e) {
      throw new SQLException("params of key '" + rs.getString("key") + "' are not JSON", e);
    }
    return Registration.of(
        rs.getString("key"),
        rs.getString("source"),
        params,
        Duration.ofMillis(rs.getLong("ttl_ms")),
        rs.getTimestamp("created_at").toInstant(),
        rs.getTimestamp("updated_at").toInstant(),
        RefreshPolicy.fromJson(rs.getString("policy")))
        .withGeneration(rs.getLong("generation"));
  }

  private String toJson(Object value) {
    try {
      return json.writeValueAsString(value);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("not serialisable as JSON", e);
    }
  }

  static String escapeLike(String text) {
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_");
  }

  /**
   * Runs a database call; a failure is classified by {@link PersistenceFailures}: transient ones
   * become {@link RegistryUnavailableException}, refused input {@link
   * io.refresher.registry.RegistryRefusedException}, faults stay as they are.
   */
  static <T> T call(Supplier<T> work) {
    try {
      return work.get();
    } catch (JdbiException e) {
      throw PersistenceFailures.classify(e);
    }
  }
}
