package io.refresher.it;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.refresher.api.TokenIds;
import io.refresher.testing.RealServers;
import io.refresher.testing.TestApp;
import io.refresher.testing.TestDatabase;
import io.refresher.testing.TestRedis;
import jakarta.ws.rs.client.Entity;
import jakarta.ws.rs.core.Response;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * Issue 22, point 3 and acceptance 3: every change through the API records its actor (the
 * token's role and id, never the token, and the request's id), {@code GET /v1/changes} pages them;
 * two admin tokens overlap, and the one removed from the configuration is refused after a
 * restart. Neither token is in any table of the service's schema or in any line the service
 * logged. On the real service, real PostgreSQL and Redis.
 */
class ChangeActorIT {

  private static final String OLD_ADMIN = TestApp.TOKEN;
  private static final String NEW_ADMIN = "new-admin-token-after-rotation-42";
  private static final String READ = "read-token-of-the-console-0123";
  private static final ObjectMapper JSON = new ObjectMapper();

  private final ListAppender<ILoggingEvent> logged = new ListAppender<>();
  private final Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);

  /**
   * After each start: Dropwizard configures logging as the service starts, detaching what was on
   * the root logger. (The start-up lines are checked in the real process's output, ServiceJarIT.)
   */
  private void captureLogs() {
    logged.start();
    root.addAppender(logged);
  }

  @AfterEach
  void stopCapturing() {
    root.detachAppender(logged);
  }

  @Test
  void changesNameTheirActor_tokensOverlapThenTheRemovedOneIsRefused_noTokenStoredOrLogged() throws Exception {
    TestDatabase database = RealServers.newDatabase("change_actor");
    try (TestRedis redis = RealServers.newRedis()) {
      TestApp during =
          TestApp.on("change-actor-rotating", database, redis, "admin.tokens", NEW_ADMIN, "admin.readToken", READ);
      during.extension().before();
      captureLogs();
      try {
        try (Response put = send(during, OLD_ADMIN, "PUT", "/v1/keys/actor:1", "{\"source\":\"counted\",\"ttl\":\"PT1M\"}", null)) {
          assertThat(put.getStatus()).isEqualTo(201);
        }
        try (Response put =
            send(during, NEW_ADMIN, "PUT", "/v1/templates/actors", "{\"pattern\":\"actors:{id}\",\"source\":\"switchable\",\"ttl\":\"PT1M\"}", null)) {
          assertThat(put.getStatus()).isEqualTo(201);
        }
        try (Response delete = send(during, NEW_ADMIN, "DELETE", "/v1/keys/actor:1", null, "rotation-delete-1")) {
          assertThat(delete.getStatus()).isEqualTo(204);
        }
        try (Response refused = send(during, READ, "PUT", "/v1/keys/actor:2", "{\"source\":\"counted\",\"ttl\":\"PT1M\"}", null)) {
          assertThat(refused.getStatus()).as("a read token changes nothing").isEqualTo(403);
        }

        JsonNode page = changes(during, READ, "");
        JsonNode items = page.get("items");
        assertThat(items).hasSize(3);
        assertThat(items.get(0).get("action").asText()).isEqualTo("delete");
        assertThat(items.get(0).at("/actor/role").asText()).isEqualTo("admin");
        assertThat(items.get(0).at("/actor/tokenId").asText()).isEqualTo(TokenIds.of(NEW_ADMIN));
        assertThat(items.get(0).at("/actor/requestId").asText()).isEqualTo("rotation-delete-1");
        assertThat(items.get(1).get("action").asText()).isEqualTo("template-register");
        assertThat(items.get(1).get("key").asText()).isEqualTo("template:actors");
        assertThat(items.get(1).at("/actor/tokenId").asText()).isEqualTo(TokenIds.of(NEW_ADMIN));
        assertThat(items.get(2).get("action").asText()).isEqualTo("register");
        assertThat(items.get(2).at("/detail/source").asText()).isEqualTo("counted");
        assertThat(items.get(2).at("/actor/tokenId").asText()).isEqualTo(TokenIds.of(OLD_ADMIN)).isNotEqualTo(TokenIds.of(NEW_ADMIN));
        assertThat(items.get(2).at("/actor/requestId").asText()).as("a request id made for the request").isNotBlank();
        assertThat(page.get("next").isNull()).as("the last page").isTrue();

        // Pages: newest first, each continuing before the last id of the previous one.
        JsonNode first = changes(during, READ, "?limit=2");
        assertThat(first.get("items")).hasSize(2);
        JsonNode second = changes(during, READ, "?limit=2&before=" + first.get("next").asLong());
        assertThat(second.get("items")).hasSize(1);
        assertThat(second.at("/items/0/id").asLong()).isEqualTo(items.get(2).get("id").asLong());
        assertThat(changes(during, READ, "?key=actor:1").get("items")).hasSize(2);
        for (String[] bad : new String[][] {{"?limit=0", "limit"}, {"?limit=1001", "limit"}, {"?before=-1", "before"}, {"?before=x", "before"}}) {
          try (Response refused = send(during, READ, "GET", "/v1/changes" + bad[0], null, null)) {
            assertThat(refused.getStatus()).as(bad[0]).isEqualTo(422);
            assertThat(refused.readEntity(String.class)).as(bad[0]).contains("\"field\":\"" + bad[1] + "\"");
          }
        }
      } finally {
        during.extension().after();
      }

      // The rotation's last step: the old token is gone from the configuration.
      TestApp after = TestApp.on("change-actor-rotated", database, redis, "admin.token", NEW_ADMIN, "admin.readToken", READ);
      after.extension().before();
      captureLogs();
      try {
        try (Response old = send(after, OLD_ADMIN, "GET", "/v1/changes", null, null)) {
          assertThat(old.getStatus()).as("the removed token, after the restart").isEqualTo(401);
        }
        try (Response current = send(after, NEW_ADMIN, "GET", "/v1/changes", null, null)) {
          assertThat(current.getStatus()).isEqualTo(200);
        }
      } finally {
        after.extension().after();
      }

      for (String token : List.of(OLD_ADMIN, NEW_ADMIN, READ)) {
        assertThat(tablesHolding(database, token)).as("tables of the service's schema holding a token").isEmpty();
        assertThat(linesHolding(token)).as("log lines holding a token").isEmpty();
      }
      assertThat(linesHolding("registered key 'actor:1'")).as("what the service logged was captured").isNotEmpty();
      assertThat(tablesHolding(database, "rotation-delete-1")).as("the scan finds what is stored").contains("refresher_audit");
    }
  }

  private static Response send(TestApp app, String token, String method, String path, String json, String requestId) {
    String[] pathAndQuery = path.split("\\?", 2);
    jakarta.ws.rs.client.WebTarget target = app.api(pathAndQuery[0]);
    if (pathAndQuery.length == 2) {
      for (String pair : pathAndQuery[1].split("&")) {
        String[] nameAndValue = pair.split("=", 2);
        target = target.queryParam(nameAndValue[0], nameAndValue[1]);
      }
    }
    var request = target.request().header("Authorization", "Bearer " + token);
    if (requestId != null) {
      request = request.header("X-Request-Id", requestId);
    }
    return json == null ? request.method(method) : request.method(method, Entity.json(json));
  }

  private static JsonNode changes(TestApp app, String token, String query) throws Exception {
    try (Response response = send(app, token, "GET", "/v1/changes" + query, null, null)) {
      String body = response.readEntity(String.class);
      assertThat(response.getStatus()).as(body).isEqualTo(200);
      return JSON.readTree(body);
    }
  }

  /** Every table of the service's schema whose rows, as text, contain {@code text}. */
  private static List<String> tablesHolding(TestDatabase database, String text) {
    List<String> holding = new ArrayList<>();
    for (String table : database.queryStrings("SELECT table_name FROM information_schema.tables WHERE table_schema = 'refresher'")) {
      long rows =
          database.queryLong(
              "SELECT count(*) FROM refresher.\"" + table + "\" t WHERE position('" + text + "' IN CAST(t.* AS text)) > 0");
      if (rows > 0) {
        holding.add(table);
      }
    }
    return holding;
  }

  private List<String> linesHolding(String text) {
    List<String> holding = new ArrayList<>();
    synchronized (logged) {
      for (ILoggingEvent event : logged.list) {
        StringBuilder line = new StringBuilder(event.getFormattedMessage()).append(event.getMDCPropertyMap());
        for (IThrowableProxy cause = event.getThrowableProxy(); cause != null; cause = cause.getCause()) {
          line.append(cause.getMessage());
        }
        if (line.indexOf(text) >= 0) {
          holding.add(line.toString());
        }
      }
    }
    return holding;
  }
}
