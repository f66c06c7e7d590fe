package io.refresher.persistence;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.refresher.registry.InvalidRegistrationException;
import io.refresher.registry.KeyTemplate;
import io.refresher.registry.RegistryUnavailableException;
import io.refresher.registry.TemplatePattern;
import io.refresher.registry.TemplateRepository;
import io.refresher.registry.Templates;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.JdbiException;
import org.jdbi.v3.core.statement.StatementContext;

/**
 * Key templates in PostgreSQL ({@code refresher_template}), with an audit row for every change
 * under the key {@code template:<name>}.
 */
public final class JdbiTemplateRepository implements TemplateRepository {

  private static final TypeReference<Map<String, Object>> PARAMS = new TypeReference<>() {};
  private static final String COLUMNS =
      "name, pattern, source, params::text AS params, ttl_ms, created_at, updated_at";
  /** PostgreSQL's unique_violation: only the pattern can collide, as a name conflict is an update. */
  private static final String UNIQUE_VIOLATION = "23505";

  private final Jdbi jdbi;
  private final ObjectMapper json;

  public JdbiTemplateRepository(Jdbi jdbi, ObjectMapper json) {
    this.jdbi = jdbi;
    this.json = json;
  }

  @Override
  public Templates.Stored upsert(KeyTemplate template) {
    String params = toJson(template.params());
    try {
      return call(
          () ->
              jdbi.inTransaction(
                  handle -> {
                    Templates.Stored stored =
                        handle
                            .createQuery(
                                "INSERT INTO refresher_template "
                                    + "(name, pattern, source, params, ttl_ms, created_at, updated_at) "
                                    + "VALUES (:name, :pattern, :source, CAST(:params AS jsonb), :ttl, :now, :now) "
                                    + "ON CONFLICT (name) DO UPDATE SET pattern = EXCLUDED.pattern, "
                                    + "source = EXCLUDED.source, params = EXCLUDED.params, ttl_ms = EXCLUDED.ttl_ms, "
                                    + "updated_at = EXCLUDED.updated_at "
                                    + "RETURNING " + COLUMNS + ", (xmax = 0) AS inserted")
                            .bind("name", template.name())
                            .bind("pattern", template.pattern().text())
                            .bind("source", template.source())
                            .bind("params", params)
                            .bind("ttl", template.ttl().toMillis())
                            .bind("now", Timestamp.from(template.updatedAt()))
                            .map((rs, ctx) -> new Templates.Stored(map(rs), rs.getBoolean("inserted")))
                            .one();
                    audit(
                        handle,
                        stored.created() ? "template-register" : "template-replace",
                        template.name(),
                        detail(template));
                    return stored;
                  }));
    } catch (RegistryUnavailableException e) {
      if (!isUniqueViolation(e)) {
        throw e;
      }
      // Another request stored the same pattern under another name since this one was validated.
      String holder = findByPattern(template.pattern().text()).map(KeyTemplate::name).orElse("another template");
      throw new InvalidRegistrationException("pattern", Templates.patternInUse(holder));
    }
  }

  @Override
  public Optional<KeyTemplate> find(String name) {
    return call(
        () ->
            jdbi.withHandle(
                handle ->
                    handle
                        .createQuery("SELECT " + COLUMNS + " FROM refresher_template WHERE name = :name")
                        .bind("name", name)
                        .map(this::mapRow)
                        .findOne()));
  }

  @Override
  public Optional<KeyTemplate> findByPattern(String pattern) {
    return call(
        () ->
            jdbi.withHandle(
                handle ->
                    handle
                        .createQuery("SELECT " + COLUMNS + " FROM refresher_template WHERE pattern = :pattern")
                        .bind("pattern", pattern)
                        .map(this::mapRow)
                        .findOne()));
  }

  @Override
  public List<KeyTemplate> page(String after, int limit) {
    return call(
        () ->
            jdbi.withHandle(
                handle ->
                    handle
                        .createQuery(
                            "SELECT " + COLUMNS + " FROM refresher_template WHERE name > :after ORDER BY name LIMIT :limit")
                        .bind("after", after)
                        .bind("limit", limit)
                        .map(this::mapRow)
                        .list()));
  }

  @Override
  public boolean delete(String name) {
    return call(
        () ->
            jdbi.inTransaction(
                handle -> {
                  Optional<KeyTemplate> deleted =
                      handle
                          .createQuery("DELETE FROM refresher_template WHERE name = :name RETURNING " + COLUMNS)
                          .bind("name", name)
                          .map(this::mapRow)
                          .findOne();
                  deleted.ifPresent(template -> audit(handle, "template-delete", name, detail(template)));
                  return deleted.isPresent();
                }));
  }

  @Override
  public List<KeyTemplate> all() {
    return call(
        () ->
            jdbi.withHandle(
                handle ->
                    handle
                        .createQuery("SELECT " + COLUMNS + " FROM refresher_template ORDER BY name")
                        .map(this::mapRow)
                        .list()));
  }

  @Override
  public long count() {
    return call(
        () ->
            jdbi.withHandle(
                handle -> handle.createQuery("SELECT count(*) FROM refresher_template").mapTo(Long.class).one()));
  }

  private void audit(Handle handle, String action, String name, Map<String, Object> detail) {
    handle
        .createUpdate(
            "INSERT INTO refresher_audit (action, key, detail) VALUES (:action, :key, CAST(:detail AS jsonb))")
        .bind("action", action)
        .bind("key", "template:" + name)
        .bind("detail", toJson(detail))
        .execute();
  }

  private static Map<String, Object> detail(KeyTemplate template) {
    Map<String, Object> detail = new LinkedHashMap<>();
    detail.put("pattern", template.pattern().text());
    detail.put("source", template.source());
    detail.put("params", template.params());
    detail.put("ttl", template.ttl().toString());
    return detail;
  }

  private KeyTemplate mapRow(ResultSet rs, StatementContext ctx) throws SQLException {
    return map(rs);
  }

  private KeyTemplate map(ResultSet rs) throws SQLException {
    String name = rs.getString("name");
    Map<String, Object> params;
    try {
      params = json.readValue(rs.getString("params"), PARAMS);
    } catch (JsonProcessingException e) {
      throw new SQLException("params of template '" + name + "' are not JSON", e);
    }
    TemplatePattern pattern;
    try {
      pattern = TemplatePattern.parse(rs.getString("pattern"));
    } catch (InvalidRegistrationException e) {
      // Only this service writes the table, after validating; a bad row was written by hand.
      throw new SQLException("pattern of template '" + name + "' is invalid: " + e.getMessage(), e);
    }
    return new KeyTemplate(
        name,
        pattern,
        rs.getString("source"),
        params,
        Duration.ofMillis(rs.getLong("ttl_ms")),
        rs.getTimestamp("created_at").toInstant(),
        rs.getTimestamp("updated_at").toInstant());
  }

  private String toJson(Object value) {
    try {
      return json.writeValueAsString(value);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("not serialisable as JSON", e);
    }
  }

  private static boolean isUniqueViolation(Throwable e) {
    for (Throwable cause = e; cause != null; cause = cause.getCause()) {
      if (cause instanceof SQLException sql && UNIQUE_VIOLATION.equals(sql.getSQLState())) {
        return true;
      }
      if (cause.getCause() == cause) {
        break;
      }
    }
    return false;
  }

  /** A database failure becomes {@link RegistryUnavailableException}, as for keys. */
  private static <T> T call(Supplier<T> work) {
    return JdbiRegistrationRepository.call(work);
  }
}
