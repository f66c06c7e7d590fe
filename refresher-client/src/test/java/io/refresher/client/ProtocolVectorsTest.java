package io.refresher.client;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.refresher.client.driver.RedisScript;
import io.refresher.client.protocol.AccessProtocol;
import io.refresher.client.protocol.CacheKeys;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The Java client against the conformance corpus ({@code protocol/vectors}): every case's inputs
 * through this implementation give the case's outputs. The Python and Node suites run the same
 * files; {@link ProtocolVectors} writes them.
 */
class ProtocolVectorsTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void keys_slotsShardsAndCompanionKeys() throws IOException {
    JsonNode cases = read("keys.json").get("cases");
    assertThat(cases.size()).isGreaterThanOrEqualTo(10);
    for (JsonNode c : cases) {
      String key = c.get("key").asText();
      assertThat(CacheKeys.slot(key)).as("slot of %s", key).isEqualTo(c.get("slot").asInt());
      assertThat(AccessProtocol.shardOf(key)).as("shard of %s", key).isEqualTo(c.get("shard").asInt());
      assertThat(CacheKeys.metaKey(key)).as("metaKey of %s", key).isEqualTo(c.get("metaKey").asText());
      assertThat(CacheKeys.lockName(key)).as("lockName of %s", key).isEqualTo(c.get("lockName").asText());
      assertThat(CacheKeys.flightLockName(key)).as("flightLockName of %s", key).isEqualTo(c.get("flightLockName").asText());
      assertThat(CacheKeys.slot(CacheKeys.metaKey(key))).as("metaKey of %s in its slot", key).isEqualTo(CacheKeys.slot(key));
    }
  }

  @Test
  void buckets_secondsAndNames() throws IOException {
    JsonNode document = read("buckets.json");
    assertThat(document.get("prefix").asText()).isEqualTo(AccessProtocol.PREFIX);
    assertThat(document.get("shards").asInt()).isEqualTo(AccessProtocol.SHARDS);
    assertThat(document.get("bucketTtlSeconds").asInt()).isEqualTo(AccessProtocol.BUCKET_TTL_SECONDS);
    for (JsonNode c : document.get("cases")) {
      long second = AccessProtocol.secondOf(c.get("epochMillis").asLong());
      assertThat(second).as("second of %s", c).isEqualTo(c.get("second").asLong());
      assertThat(AccessProtocol.bucketKey(c.get("shard").asInt(), second)).as("bucket of %s", c).isEqualTo(c.get("bucketKey").asText());
    }
  }

  @Test
  void xfetch_decisions() throws IOException {
    JsonNode cases = read("xfetch.json").get("cases");
    assertThat(cases.size()).isGreaterThan(100);
    for (JsonNode c : cases) {
      boolean recompute =
          EarlyRecompute.decide(
              c.get("nowMillis").asLong(),
              c.get("deltaMillis").asLong(),
              c.get("expiresAtMillis").asLong(),
              c.get("beta").asDouble(),
              c.get("uniform").asDouble());
      assertThat(recompute).as("XFetch on %s", c).isEqualTo(c.get("recompute").asBoolean());
    }
  }

  @Test
  void readDecisions() throws IOException {
    for (JsonNode c : read("read-decisions.json").get("cases")) {
      StoredValue stored =
          new StoredValue(
              c.get("value").isNull() ? null : c.get("value").asText(),
              longOrNull(c.get("deltaMillis")),
              longOrNull(c.get("expiresAtMillis")),
              c.get("epoch").asLong(),
              c.get("redisNowMillis").asLong());
      double beta = c.get("beta").asDouble();
      double uniform = c.get("uniform").asDouble();
      ReadDecision decision = ReadDecision.of(stored, (now, delta, expiresAt) -> EarlyRecompute.decide(now, delta, expiresAt, beta, uniform));
      assertThat(decision.name()).as("decision on %s", c).isEqualTo(c.get("decision").asText());
    }
  }

  @Test
  void scripts_areTheseTexts() throws IOException {
    Map<String, RedisScript> ours =
        List.of(ValueStore.READ, ValueStore.WRITE, FlightLock.RELEASE, AccessBucketWriter.ADD_COUNTS).stream()
            .collect(Collectors.toMap(RedisScript::name, Function.identity()));
    JsonNode scripts = read("scripts.json").get("scripts");
    assertThat(scripts.size()).isEqualTo(ours.size());
    for (JsonNode script : scripts) {
      RedisScript mine = ours.get(script.get("name").asText());
      assertThat(mine).as("script %s", script.get("name")).isNotNull();
      assertThat(mine.text()).as("text of %s", mine.name()).isEqualTo(script.get("text").asText());
      assertThat(mine.sha1()).as("SHA-1 of %s", mine.name()).isEqualTo(script.get("sha1").asText());
      assertThat(RedisScript.sha1Of(script.get("text").asText())).as("the corpus's own SHA-1 of %s", mine.name())
          .isEqualTo(script.get("sha1").asText());
    }
  }

  @Test
  void theFiles_areWhatTheGeneratorWrites() throws IOException {
    // A protocol change that keeps every case above true but adds or drops one is a change too.
    for (Map.Entry<String, Object> file : ProtocolVectors.all().entrySet()) {
      assertThat(read(file.getKey())).as(file.getKey() + " (regenerate: see ProtocolVectors)").isEqualTo(JSON.readTree(JSON.writeValueAsString(file.getValue())));
    }
  }

  static JsonNode read(String file) throws IOException {
    return JSON.readTree(ProtocolVectors.DIRECTORY.resolve(file).toFile());
  }

  private static Long longOrNull(JsonNode node) {
    return node == null || node.isNull() ? null : node.asLong();
  }
}
