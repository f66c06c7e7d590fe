package io.refresher.persistence;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.refresher.registry.Change;
import io.refresher.registry.ChangeActor;
import io.refresher.registry.ChangeLog;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import org.jdbi.v3.core.Jdbi;

/** The change log in {@code refresher_audit}, paged by id, newest first. */
public final class JdbiChangeLog implements ChangeLog {

  private static final TypeReference<Map<String, Object>> DETAIL = new TypeReference<>() {};

  private final Jdbi jdbi;
  private final ObjectMapper json;

  public JdbiChangeLog(Jdbi jdbi, ObjectMapper json) {
    this.jdbi = jdbi;
    this.json = json;
  }

  @Override
  public List<Change> page(String key, long before, int limit) {
    return JdbiRegistrationRepository.call(
        () ->
            jdbi.withHandle(
                handle ->
                    handle
                        .createQuery(
                            "SELECT id, at, action, key, detail, actor_role, actor_token_id, request_id "
                                + "FROM refresher_audit "
                                + "WHERE (:before = 0 OR id < :before) AND (CAST(:key AS text) IS NULL OR key = :key) "
                                + "ORDER BY id DESC LIMIT :limit")
                        .bind("before", before)
                        .bind("key", key)
                        .bind("limit", limit)
                        .map((rs, ctx) -> map(rs))
                        .list()));
  }

  private Change map(ResultSet rs) throws SQLException {
    String role = rs.getString("actor_role");
    ChangeActor actor = role == null ? null : new ChangeActor(role, rs.getString("actor_token_id"), rs.getString("request_id"));
    String detail = rs.getString("detail");
    return new Change(
        rs.getLong("id"),
        rs.getTimestamp("at").toInstant(),
        rs.getString("action"),
        rs.getString("key"),
        detail == null ? Map.of() : parse(detail),
        actor);
  }

  private Map<String, Object> parse(String detail) {
    try {
      return json.readValue(detail, DETAIL);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("a change's detail is not a JSON object", e);
    }
  }
}
