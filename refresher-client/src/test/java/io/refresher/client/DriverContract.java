package io.refresher.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.refresher.client.driver.CallOutcome;
import io.refresher.client.driver.RedisDriver;
import io.refresher.client.driver.RedisScript;
import io.refresher.client.driver.ScriptCall;
import com.fasterxml.jackson.databind.JsonNode;
import io.refresher.client.protocol.AccessProtocol;
import io.refresher.client.protocol.CacheKeys;
import io.refresher.embedded.EmbeddedRedis;
import io.refresher.embedded.RespConnection;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What every driver must do, on a real single Redis: each driver module runs these through a
 * subclass that says how its library connects. Drivers are made with a 1 s command timeout.
 */
public abstract class DriverContract {

  protected static final Duration TIMEOUT = Duration.ofSeconds(1);

  private static EmbeddedRedis redis;
  private final List<RedisDriver> drivers = new ArrayList<>();

  /** A driver on the library's client, connected to 127.0.0.1:port, command timeout {@link #TIMEOUT}. */
  protected abstract RedisDriver connect(int port);

  /** Closes what {@link #connect} opened for the library (its clients, pools). */
  protected abstract void disconnectAll();

  @BeforeAll
  static void startRedis() {
    redis = EmbeddedRedis.start();
  }

  @AfterAll
  static void stopRedis() {
    redis.close();
  }

  @BeforeEach
  void emptyRedis() throws IOException {
    call("FLUSHALL");
  }

  @AfterEach
  void closeDrivers() {
    drivers.forEach(RedisDriver::close);
    drivers.clear();
    disconnectAll();
  }

  private RedisDriver driver(int port) {
    RedisDriver driver = connect(port);
    drivers.add(driver);
    return driver;
  }

  @Test
  void getSetIfAbsentAndDelete_areRedissOwn() throws IOException {
    RedisDriver driver = driver(redis.port());
    call("SET", "greeting", "grüß dich");

    assertThat(driver.get("greeting")).isEqualTo("grüß dich");
    assertThat(driver.get("absent")).isNull();
    assertThat(driver.setIfAbsent("lock", "mine", Duration.ofSeconds(10))).isTrue();
    assertThat(driver.setIfAbsent("lock", "theirs", Duration.ofSeconds(10))).isFalse();
    assertThat(call("GET", "lock")).isEqualTo("mine");
    assertThat((Long) call("PTTL", "lock")).isBetween(1L, 10_000L);
    assertThat(driver.delete("lock")).isTrue();
    assertThat(driver.delete("lock")).as("deleted already").isFalse();
    assertThat(call("EXISTS", "lock")).isEqualTo(0L);
  }

  @Test
  void eval_repliesAsPromised_andLoadsAScriptRedisDoesNotHave() throws IOException {
    RedisDriver driver = driver(redis.port());
    RedisScript list =
        RedisScript.readOnly("list", "return {redis.call('GET', KEYS[1]), ARGV[1], 7}", RedisScript.Reply.LIST);
    RedisScript integer = RedisScript.writing("integer", "return redis.call('INCRBY', KEYS[1], ARGV[1])", RedisScript.Reply.INTEGER);
    call("SET", "k", "v");

    assertThat(driver.eval(list, List.of("k"), List.of("a"))).isEqualTo(List.of("v", "a", 7L));
    assertThat(driver.eval(integer, List.of("n"), List.of("5"))).isEqualTo(5L);
    call("SCRIPT", "FLUSH");
    assertThat(driver.eval(integer, List.of("n"), List.of("5"))).as("after SCRIPT FLUSH").isEqualTo(10L);
    assertThat((List<?>) driver.eval(list, List.of("absent"), List.of("a"))).first().isNull();
  }

  @Test
  void pipelinedCalls_allRun_evenAfterScriptFlush() throws IOException {
    RedisDriver driver = driver(redis.port());
    call("SCRIPT", "FLUSH");

    List<CallOutcome> outcomes = driver.evalPipelined(AccessBucketWriter.ADD_COUNTS, List.of(addCall("a", 3), addCall("b", 4)));

    assertThat(outcomes).as("outcomes, failures %s", outcomes).extracting(CallOutcome::kind).containsExactly(CallOutcome.Kind.DONE, CallOutcome.Kind.DONE);
    assertThat(call("HGET", bucket(), "a")).isEqualTo("3");
    assertThat(call("HGET", bucket(), "b")).isEqualTo("4");
  }

  @Test
  void aCallWhoseAnswerIsLost_isNotSentAgain() throws IOException {
    try (AnswerDroppingProxy proxy = new AnswerDroppingProxy(redis.port())) {
      RedisDriver driver = driver(proxy.port());
      assertThat(driver.get("warm-up")).isNull();
      // Sent by SHA-1 or as text, it runs: the answer dropped is the script's, never a NOSCRIPT.
      call("SCRIPT", "LOAD", AccessBucketWriter.ADD_COUNTS.text());

      proxy.dropNextAnswer();
      List<CallOutcome> outcomes = driver.evalPipelined(AccessBucketWriter.ADD_COUNTS, List.of(addCall("once", 1)));

      assertThat(proxy.dropped()).isEqualTo(1);
      assertThat(outcomes).extracting(CallOutcome::kind).containsExactly(CallOutcome.Kind.UNKNOWN);
      // Redis ran it before its answer was dropped. A library that re-sends it does so before
      // anything sent later on the connection, so once a later call is answered, a re-send is done.
      await().atMost(Duration.ofSeconds(10)).ignoreExceptions().until(() -> driver.get("later") == null);
      assertThat(call("HGET", bucket(), "once")).as("count of the call whose answer was lost").isEqualTo("1");
    }
  }

  @Test
  void callsWithRedisGone_areNotRun_andSafeToSendAgain() throws IOException {
    EmbeddedRedis doomed = EmbeddedRedis.start();
    try {
      RedisDriver driver = driver(doomed.port());
      assertThat(driver.get("warm-up")).isNull();
      doomed.kill();

      List<CallOutcome> outcomes = driver.evalPipelined(AccessBucketWriter.ADD_COUNTS, List.of(addCall("a", 1)));

      assertThat(outcomes).extracting(CallOutcome::kind).doesNotContain(CallOutcome.Kind.DONE);
      assertThat(outcomes.get(0).failure()).isNotNull();
      assertThat(driver.isRedisFailure(asRuntime(outcomes.get(0).failure()))).isTrue();
    } finally {
      doomed.close();
    }
  }

  @Test
  void theClient_onThisDriver_loadsOnceAcrossProcesses_andCountsEveryRead() throws Exception {
    try (RefresherClient first = RefresherClient.builder(driver(redis.port())).build();
        RefresherClient second = RefresherClient.builder(driver(redis.port())).build()) {
      AtomicInteger loads = new AtomicInteger();
      CountDownLatch start = new CountDownLatch(1);
      ExecutorService callers = Executors.newFixedThreadPool(16);
      try {
        List<Future<String>> values = new ArrayList<>();
        for (int i = 0; i < 16; i++) {
          RefresherClient client = i % 2 == 0 ? first : second;
          values.add(
              callers.submit(
                  () -> {
                    start.await();
                    return client.get(
                        "product:7",
                        Duration.ofMinutes(1),
                        () -> {
                          loads.incrementAndGet();
                          Thread.sleep(200); // the database's time: the others must wait for it
                          return "{\"id\":7}";
                        });
                  }));
        }
        start.countDown();
        for (Future<String> value : values) {
          assertThat(value.get(10, TimeUnit.SECONDS)).isEqualTo("{\"id\":7}");
        }
      } finally {
        callers.shutdownNow();
      }
      assertThat(loads).hasValue(1);
      assertThat(first.flush()).isTrue();
      assertThat(second.flush()).isTrue();
    }
    assertThat(countedReads("product:7")).isEqualTo(16);
    assertThat(call("HGET", CacheKeys.metaKey("product:7"), "expiresAt")).isNotNull();
  }

  @Test
  void writeRule_asTheCorpusSays() throws IOException {
    JsonNode document = ProtocolVectorsTest.read("write-rule.json");
    String key = document.get("key").asText();
    String meta = CacheKeys.metaKey(key);
    JsonNode write = document.get("write");
    long ttl = write.get("ttlMillis").asLong();
    ValueStore store = new ValueStore(driver(redis.port()));
    assertThat(document.get("cases").size()).isGreaterThanOrEqualTo(8);
    for (JsonNode c : document.get("cases")) {
      String name = c.get("name").asText();
      call("FLUSHALL");
      long now = redisMillis();
      JsonNode before = c.get("before");
      if (!before.get("value").isNull()) {
        call("SET", key, before.get("value").asText());
      }
      before.get("meta").fields().forEachRemaining(field -> hset(meta, field.getKey(), field.getValue(), now));
      if (!before.get("metaPttlMillis").isNull()) {
        call("PEXPIRE", meta, before.get("metaPttlMillis").asText());
      }

      boolean written =
          store.write(key, new ValueStore.Written(write.get("value").asText(), ttl, write.get("deltaMillis").asLong()));

      assertThat(written).as("written: %s", name).isEqualTo(c.get("written").asBoolean());
      JsonNode after = c.get("after");
      if (written) {
        assertThat(call("GET", key)).as("value: %s", name).isEqualTo(write.get("value").asText());
        assertThat((Long) call("PTTL", key)).as("value's TTL: %s", name).isBetween(ttl - 10_000, ttl);
        long computedAt = Long.parseLong((String) call("HGET", meta, "computedAt"));
        assertThat(computedAt).as("computedAt, Redis's time: %s", name).isBetween(now, now + 10_000);
        assertThat(call("HGET", meta, "expiresAt")).as("expiresAt: %s", name).isEqualTo(Long.toString(computedAt + ttl));
      } else {
        assertThat(call("GET", key)).as("value left: %s", name).isEqualTo(before.get("value").asText());
      }
      after.get("meta").fields().forEachRemaining(
          field -> assertThat(hget(meta, field.getKey())).as("%s after: %s", field.getKey(), name).isEqualTo(field.getValue().asText()));
      for (JsonNode absent : after.get("metaAbsent")) {
        assertThat(hget(meta, absent.asText())).as("%s gone: %s", absent.asText(), name).isNull();
      }
      if (!after.get("metaPttlAtLeastMillis").isNull()) {
        assertThat((Long) call("PTTL", meta)).as("metadata's TTL: %s", name).isGreaterThanOrEqualTo(after.get("metaPttlAtLeastMillis").asLong());
      }
    }
  }

  private static void hset(String meta, String field, JsonNode value, long now) {
    String text = value.isObject() ? Long.toString(now + value.get("fromNowMillis").asLong()) : value.asText();
    try {
      call("HSET", meta, field, text);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static Object hget(String meta, String field) {
    try {
      return call("HGET", meta, field);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /** Redis's clock, epoch ms: the protocol's times are on it. */
  private static long redisMillis() throws IOException {
    List<?> time = (List<?>) call("TIME");
    return Long.parseLong(time.get(0).toString()) * 1_000 + Long.parseLong(time.get(1).toString()) / 1_000;
  }

  private static ScriptCall addCall(String key, long count) {
    return new ScriptCall(List.of(bucket()), List.of("60", key, Long.toString(count)));
  }

  /** A fixed bucket name: the tests' pipelines all write into it. */
  private static String bucket() {
    return AccessProtocol.bucketKey(0, 1);
  }

  private static RuntimeException asRuntime(Throwable failure) {
    return failure instanceof RuntimeException runtime ? runtime : new RuntimeException(failure);
  }

  private static long countedReads(String key) throws IOException {
    long sum = 0;
    Object keys = call("KEYS", AccessProtocol.PREFIX + "*");
    for (Object bucket : (List<?>) keys) {
      Object count = call("HGET", bucket.toString(), key);
      if (count != null) {
        sum += Long.parseLong(count.toString());
      }
    }
    return sum;
  }

  protected static Object call(String... command) throws IOException {
    try (RespConnection connection = RespConnection.open(redis.port(), Duration.ofSeconds(5))) {
      return connection.call(command);
    }
  }
}
