package io.refresher.persistence;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.refresher.registry.InvalidRegistrationException;
import io.refresher.registry.KeyTemplate;
import io.refresher.registry.RegistryRefusedException;
import io.refresher.registry.TemplatePattern;
import io.refresher.registry.TemplateRepository;
import io.refresher.registry.Templates;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.statement.StatementContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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

  private static final Logger LOG = LoggerFactory.getLogger(JdbiTemplateRepository.class);

  private final Jdbi jdbi;
  private final ObjectMapper json;
  /** The unreadable rows already warned about, with the version (updated_at) warned about. */
  private volatile Map<String, Instant> warnedUnreadable = Map.of();

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
    } catch (RegistryRefusedException e) {
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

  /**
   * Every template the service can read. A row it cannot read (written by hand, or by another
   * version: a pattern that does not parse, params that are not an object) is left out with a WARN
   * naming it, once per version of the row, so that one bad row does not stop the others from
   * loading.
   */
  @Override
  public List<KeyTemplate> all() {
    List<Row> rows =
        call(
            () ->
                jdbi.withHandle(
                    handle ->
                        handle
                            .createQuery("SELECT " + COLUMNS + " FROM refresher_template ORDER BY name")
                            .map((rs, ctx) -> Row.read(rs))
                            .list()));
    List<KeyTemplate> templates = new ArrayList<>(rows.size());
    Map<String, Instant> unreadable = new HashMap<>();
    for (Row row : rows) {
      try {
        templates.add(toTemplate(row));
      } catch (UnreadableRowException e) {
        unreadable.put(row.name(), row.updatedAt());
        if (!row.updatedAt().equals(warnedUnreadable.get(row.name()))) {
          LOG.warn("template '{}' is ignored, its row cannot be read: {}; fix or delete it", row.name(), e.getMessage());
        }
      }
    }
    warnedUnreadable = Map.copyOf(unreadable);
    return templates;
  }

  @Override
  public long count() {
    return call(
        () ->
            jdbi.withHandle(
                handle -> handle.createQuery("SELECT count(*) FROM refresher_template").mapTo(Long.class).one()));
  }

  private void audit(Handle handle, String action, String name, Map<String, Object> detail) {
    ChangeRows.insert(handle, action, "template:" + name, toJson(detail));
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
    Row row = Row.read(rs);
    try {
      return toTemplate(row);
    } catch (UnreadableRowException e) {
      throw new SQLException(e.getMessage(), e);
    }
  }

  private KeyTemplate toTemplate(Row row) throws UnreadableRowException {
    Map<String, Object> params;
    try {
      params = json.readValue(row.params(), PARAMS);
    } catch (JsonProcessingException e) {
      throw new UnreadableRowException("params of template '" + row.name() + "' are not a JSON object", e);
    }
    if (params == null) {
      throw new UnreadableRowException("params of template '" + row.name() + "' are not a JSON object", null);
    }
    TemplatePattern pattern;
    try {
      pattern = TemplatePattern.parse(row.pattern());
    } catch (InvalidRegistrationException e) {
      // Only this service writes the table, after validating; a bad row was written by hand.
      throw new UnreadableRowException("pattern of template '" + row.name() + "' is invalid: " + e.getMessage(), e);
    }
    return new KeyTemplate(row.name(), pattern, row.source(), params, row.ttl(), row.createdAt(), row.updatedAt());
  }

  /** A template row as stored, before its pattern and params are parsed. */
  private record Row(String name, String pattern, String source, String params, Duration ttl, Instant createdAt, Instant updatedAt) {
    static Row read(ResultSet rs) throws SQLException {
      return new Row(
          rs.getString("name"),
          rs.getString("pattern"),
          rs.getString("source"),
          rs.getString("params"),
          Duration.ofMillis(rs.getLong("ttl_ms")),
          rs.getTimestamp("created_at").toInstant(),
          rs.getTimestamp("updated_at").toInstant());
    }
  }

  /** A stored row this version of the service cannot turn into a template. */
  private static final class UnreadableRowException extends Exception {
    private static final long serialVersionUID = 1L;

    UnreadableRowException(String message, Throwable cause) {
      super(message, cause);
    }
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

  /** A database failure is classified as for keys (see {@link PersistenceFailures}). */
  private static <T> T call(Supplier<T> work) {
    return JdbiRegistrationRepository.call(work);
  }
}
