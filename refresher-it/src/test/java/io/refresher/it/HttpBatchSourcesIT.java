package io.refresher.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.refresher.config.RefresherConfiguration;
import io.refresher.testing.RecordingHttpServer;
import io.refresher.testing.TestApp;
import jakarta.ws.rs.core.Response;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Issue 23, point 1, for HTTP sources: a source with a batch request computes many keys with one
 * {@code POST} whose JSON body holds the keys' ids as an array, against an HTTP server the test
 * starts; the response's items are matched to their keys by their id; an id with no item and an
 * item without its value each fail alone.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class HttpBatchSourcesIT {

  private static final ObjectMapper JSON = new ObjectMapper();
  /** No item for this id; the item of the next has no value. */
  private static final long MISSING = 99;
  private static final long VALUELESS = 98;

  /** GET /base/products/{id}: {"data":{...}}; POST /base/products:batchGet {"ids":[...]}: {"items":[...]}. */
  private static final RecordingHttpServer API = RecordingHttpServer.start(HttpBatchSourcesIT::answer);

  private static final TestApp APP =
      TestApp.withConfig(
          "http_batch_sources",
          List.of(),
          """
          httpEndpoints:
            api:
              baseUrl: http://127.0.0.1:%d/base
          sources:
            product-api:
              http: { endpoint: api, path: "/products/{id}", pointer: /data }
              params: { id: long }
              timeout: 2s
              batch:
                http: { endpoint: api, method: POST, path: "/products:batchGet", body: { ids: "{id}" }, pointer: /items }
                itemId: /id
                itemValue: /data
                maxBatch: 100
                window: 1s
            product-list:
              http: { endpoint: api, path: "/list/{id}", pointer: /data }
              params: { id: long }
              timeout: 2s
              batch:
                http: { endpoint: api, method: GET, path: "/list", query: { id: "{id}", view: full }, pointer: /items }
                itemId: /id
                itemValue: /data
                maxBatch: 100
                window: 1s
          refresh:
            retryBase: 30s
            retryMax: 1m
          """
              .formatted(API.port()));

  static final DropwizardAppExtension<RefresherConfiguration> EXTENSION = APP.extension();

  @AfterAll
  static void stopServer() {
    API.close();
  }

  private static RecordingHttpServer.Reply answer(RecordingHttpServer.Request request) {
    try {
      if (request.method().equals("POST") && request.target().equals("/base/products:batchGet")) {
        ArrayNode items = JSON.createArrayNode();
        for (JsonNode id : JSON.readTree(request.bodyText()).get("ids")) {
          if (id.asLong() == MISSING) {
            continue;
          }
          ObjectNode item = items.addObject().put("id", id.asLong());
          if (id.asLong() != VALUELESS) {
            item.putObject("data").put("name", "p" + id.asLong());
          }
        }
        return RecordingHttpServer.Reply.ok(JSON.createObjectNode().set("items", items).toString());
      }
      if (request.method().equals("GET") && request.target().startsWith("/base/list?")) {
        ArrayNode items = JSON.createArrayNode();
        for (String pair : request.target().substring("/base/list?".length()).split("&")) {
          if (!pair.startsWith("id=")) {
            continue;
          }
          long id = Long.parseLong(pair.substring("id=".length()));
          if (id != MISSING) {
            items.addObject().put("id", id).putObject("data").put("name", "l" + id);
          }
        }
        return RecordingHttpServer.Reply.ok(JSON.createObjectNode().set("items", items).toString());
      }
      if (request.target().startsWith("/base/list/")) {
        long id = Long.parseLong(request.target().substring("/base/list/".length()));
        return id == MISSING
            ? RecordingHttpServer.Reply.status(404, "{}")
            : RecordingHttpServer.Reply.ok("{\"data\":{\"name\":\"l" + id + "\"}}");
      }
      long id = Long.parseLong(request.target().substring("/base/products/".length()));
      if (id == MISSING) {
        return RecordingHttpServer.Reply.status(404, "{}");
      }
      return RecordingHttpServer.Reply.ok("{\"data\":{\"name\":\"p" + id + "\"}}");
    } catch (IOException | RuntimeException e) {
      return RecordingHttpServer.Reply.status(400, String.valueOf(e));
    }
  }

  @Test
  void manualRefreshOfManyKeys_oneBatchRequest_missingItemAndValuelessItemFailAlone() throws Exception {
    List<String> keys = new ArrayList<>();
    for (long id = 1; id <= 20; id++) {
      register("api:" + id, id);
      keys.add("api:" + id);
    }
    register("api:missing", MISSING);
    register("api:valueless", VALUELESS);
    keys.add("api:missing");
    keys.add("api:valueless");
    await("the registrations' first refreshes, one request each")
        .atMost(Duration.ofSeconds(30))
        .until(() -> IntStream.rangeClosed(1, 20).allMatch(id -> APP.get("api:" + id) != null) && failures("api:missing") > 0);
    int batchesBefore = API.requestsTo("/base/products:batchGet").size();
    int singlesBefore = API.requestsTo("/base/products/").size();

    Map<String, JsonNode> byKey = HotKeyApps.refreshByKey(APP, keys);
    for (long id = 1; id <= 20; id++) {
      assertThat(byKey.get("api:" + id).get("outcome").asText()).as("api:%d", id).isEqualTo("refreshed");
    }
    assertThat(byKey.get("api:missing").get("outcome").asText()).isEqualTo("failed");
    assertThat(byKey.get("api:missing").get("errorKind").asText()).isEqualTo("NO_VALUE");
    assertThat(byKey.get("api:missing").get("error").asText()).contains("answered no item for the key");
    assertThat(byKey.get("api:valueless").get("outcome").asText()).isEqualTo("failed");
    assertThat(byKey.get("api:valueless").get("errorKind").asText()).isEqualTo("NO_VALUE");
    assertThat(API.requestsTo("/base/products:batchGet").size() - batchesBefore).as("batch requests for 22 keys").isEqualTo(1);
    assertThat(API.requestsTo("/base/products/").size() - singlesBefore).as("single requests").isZero();
    JsonNode sent = JSON.readTree(API.requestsTo("/base/products:batchGet").get(batchesBefore).bodyText());
    assertThat(sent.get("ids")).as("the ids, as a JSON array of numbers").hasSize(22).allSatisfy(id -> assertThat(id.isNumber()).isTrue());
    assertThat(APP.get("api:7")).as("a key's value: its item's data, as the single request's pointer stores it").isEqualTo("{\"name\":\"p7\"}");
  }

  @Test
  void batchRequestAsAQueryList_oneGetWithEveryId_missingItemFailsAlone() throws Exception {
    List<String> keys = new ArrayList<>();
    for (long id = 1; id <= 10; id++) {
      register("list:" + id, "product-list", id);
      keys.add("list:" + id);
    }
    register("list:missing", "product-list", MISSING);
    keys.add("list:missing");
    await("the registrations' first refreshes, one request each")
        .atMost(Duration.ofSeconds(30))
        .until(() -> IntStream.rangeClosed(1, 10).allMatch(id -> APP.get("list:" + id) != null) && failures("list:missing") > 0);
    int batchesBefore = API.requestsTo("/base/list?").size();
    int singlesBefore = API.requestsTo("/base/list/").size();

    Map<String, JsonNode> byKey = HotKeyApps.refreshByKey(APP, keys);
    for (long id = 1; id <= 10; id++) {
      assertThat(byKey.get("list:" + id).get("outcome").asText()).as("list:%d", id).isEqualTo("refreshed");
    }
    assertThat(byKey.get("list:missing").get("outcome").asText()).isEqualTo("failed");
    assertThat(byKey.get("list:missing").get("errorKind").asText()).isEqualTo("NO_VALUE");
    assertThat(API.requestsTo("/base/list?").size() - batchesBefore).as("batch requests for 11 keys").isEqualTo(1);
    assertThat(API.requestsTo("/base/list/").size() - singlesBefore).as("single requests").isZero();
    String sent = API.requestsTo("/base/list?").get(batchesBefore).target();
    assertThat(sent).as("the ids as a query list, then the literal query").startsWith("/base/list?id=").endsWith("&view=full");
    assertThat(sent.split("id=", -1)).as("one id= per key").hasSize(12);
    assertThat(APP.get("list:4")).isEqualTo("{\"name\":\"l4\"}");
  }

  private static void register(String key, long id) {
    register(key, "product-api", id);
  }

  private static void register(String key, String source, long id) {
    try (Response response =
        APP.putKey(key, "{\"source\":\"" + source + "\",\"params\":{\"id\":" + id + "},\"ttl\":\"PT1M\",\"policy\":\"always\"}")) {
      assertThat(response.getStatus()).as("registering %s", key).isEqualTo(201);
    }
  }

  /** The key's failures in a row, from its status. */
  private static int failures(String key) {
    JsonNode status = HotKeyApps.status(APP, key);
    return status == null ? 0 : status.path("consecutiveFailures").asInt();
  }

}
