package io.refresher.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.refresher.client.protocol.CacheKeys;
import io.refresher.client.protocol.MetaFields;
import io.refresher.embedded.EmbeddedRedis;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;

/** A client never overwrites a value the service keeps fresh; after the service lets go, it may. */
class WriteRuleIT {

  private static final long T0 = 1_800_000_000_000L;
  private static final long TTL = Duration.ofMinutes(5).toMillis();

  private static EmbeddedRedis redis;
  private static RedissonClient redisson;
  private static ValueStore store;

  @BeforeAll
  static void startRedis() {
    redis = EmbeddedRedis.start();
    redisson = TestRedis.connect(redis.url());
    store = new ValueStore(redisson);
  }

  @AfterAll
  static void stopRedis() {
    if (redisson != null) {
      redisson.shutdown();
    }
    if (redis != null) {
      redis.close();
    }
  }

  @BeforeEach
  void emptyRedis() {
    redisson.getKeys().flushall();
  }

  @Test
  void write_serviceValueNotExpired_isRefusedAndChangesNothing() {
    writeServiceValue("product:42", "from-service", T0 + 60_000);
    Map<String, String> metaBefore = meta("product:42");

    boolean written = store.write("product:42", new ValueStore.Written("from-client", TTL, T0, 120, T0));

    assertThat(written).isFalse();
    assertThat(redisson.getBucket("product:42").get()).isEqualTo("from-service");
    assertThat(meta("product:42")).isEqualTo(metaBefore);
  }

  @Test
  void write_serviceValuePastItsExpiry_isReplacedKeepingEpochAndToken() {
    writeServiceValue("product:42", "from-service", T0 + 60_000);
    long now = T0 + 60_001;

    boolean written = store.write("product:42", new ValueStore.Written("from-client", TTL, now, 120, now));

    assertThat(written).isTrue();
    assertThat(redisson.getBucket("product:42").get()).isEqualTo("from-client");
    assertThat(meta("product:42"))
        .containsEntry(MetaFields.EPOCH, "3")
        .containsEntry(MetaFields.TOKEN, "9")
        .containsEntry(MetaFields.COMPUTED_AT, Long.toString(now))
        .containsEntry(MetaFields.DELTA, "120")
        .containsEntry(MetaFields.EXPIRES_AT, Long.toString(now + TTL))
        .containsEntry(MetaFields.SIZE, Integer.toString("from-client".length()));
    assertThat(redisson.getBucket("product:42").remainTimeToLive()).isPositive().isLessThanOrEqualTo(TTL);
    assertThat(redisson.getBucket(CacheKeys.metaKey("product:42")).remainTimeToLive()).isPositive().isLessThanOrEqualTo(TTL);
  }

  @Test
  void write_noMetadata_writesValueAndClientMetadata() {
    boolean written = store.write("user:{7}:cart", new ValueStore.Written("[1,2,3]", TTL, T0, 15, T0));

    assertThat(written).isTrue();
    assertThat(redisson.getBucket("user:{7}:cart").get()).isEqualTo("[1,2,3]");
    assertThat(meta("user:{7}:cart"))
        .isEqualTo(
            Map.of(
                MetaFields.COMPUTED_AT, Long.toString(T0),
                MetaFields.DELTA, "15",
                MetaFields.EXPIRES_AT, Long.toString(T0 + TTL),
                MetaFields.SIZE, "7",
                MetaFields.EPOCH, "0",
                MetaFields.TOKEN, "0"));
  }

  @Test
  void write_sizeIsInBytes() {
    store.write("greeting", new ValueStore.Written("grüß", TTL, T0, 1, T0));

    assertThat(meta("greeting")).containsEntry(MetaFields.SIZE, "6");
  }

  @Test
  void write_clientValueNotExpired_isReplaced() {
    store.write("product:42", new ValueStore.Written("first", TTL, T0, 10, T0));

    boolean written = store.write("product:42", new ValueStore.Written("second", TTL, T0 + 1, 10, T0 + 1));

    assertThat(written).isTrue();
    assertThat(redisson.getBucket("product:42").get()).isEqualTo("second");
  }

  @Test
  void read_returnsValueAndTimingInOneCall() {
    assertThat(store.read("product:42")).isEqualTo(new StoredValue(null, null, null, 0));
    writeServiceValue("product:42", "from-service", T0 + 60_000);

    StoredValue stored = store.read("product:42");

    assertThat(stored).isEqualTo(new StoredValue("from-service", 200L, T0 + 60_000, 3));
    assertThat(stored.writtenByService()).isTrue();
  }

  private static Map<String, String> meta(String key) {
    return redisson.<String, String>getMap(CacheKeys.metaKey(key)).readAllMap();
  }

  private static void writeServiceValue(String key, String value, long expiresAt) {
    redisson.getBucket(key).set(value, Duration.ofHours(1));
    redisson
        .<String, String>getMap(CacheKeys.metaKey(key))
        .putAll(
            Map.of(
                MetaFields.COMPUTED_AT, Long.toString(expiresAt - 10_000),
                MetaFields.DELTA, "200",
                MetaFields.EXPIRES_AT, Long.toString(expiresAt),
                MetaFields.SIZE, Integer.toString(value.length()),
                MetaFields.EPOCH, "3",
                MetaFields.TOKEN, "9"));
    redisson.getBucket(CacheKeys.metaKey(key)).expire(Duration.ofHours(1));
  }
}
