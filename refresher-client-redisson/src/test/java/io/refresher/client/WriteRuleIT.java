package io.refresher.client;

import io.refresher.client.redisson.RedissonDriver;
import static org.assertj.core.api.Assertions.assertThat;

import io.refresher.client.protocol.CacheKeys;
import io.refresher.client.protocol.MetaFields;
import io.refresher.embedded.EmbeddedRedis;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;

/** A client never overwrites a value the service keeps fresh; after the service lets go, it may. */
class WriteRuleIT {

  /** January 2027: an expiry ahead of Redis's clock for as long as these tests matter. */
  private static final long T0 = 1_800_000_000_000L;
  private static final long TTL = Duration.ofMinutes(5).toMillis();

  private static EmbeddedRedis redis;
  private static RedissonClient redisson;
  private static ValueStore store;

  @BeforeAll
  static void startRedis() {
    redis = EmbeddedRedis.start();
    redisson = TestRedis.connect(redis.url());
    store = new ValueStore(RedissonDriver.of(redisson));
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
    writeServiceValue("product:42", "from-service", TestRedis.redisMillis(redisson) + 60_000);
    Map<String, String> metaBefore = meta("product:42");

    boolean written = store.write("product:42", new ValueStore.Written("from-client", TTL, 120));

    assertThat(written).isFalse();
    assertThat(redisson.getBucket("product:42").get()).isEqualTo("from-service");
    assertThat(meta("product:42")).isEqualTo(metaBefore);
  }

  @Test
  void write_serviceValuePastItsExpiry_isReplacedKeepingEpochAndToken() {
    long before = TestRedis.redisMillis(redisson);
    writeServiceValue("product:42", "from-service", before - 1);
    // Described the service's value, not the client's: the service must not revalidate with them.
    redisson
        .<String, String>getMap(CacheKeys.metaKey("product:42"))
        .putAll(Map.of(MetaFields.VALIDATOR, "etag:\"s1\"", MetaFields.REVALIDATED_AT, Long.toString(before - 5_000)));

    boolean written = store.write("product:42", new ValueStore.Written("from-client", TTL, 120));

    long after = TestRedis.redisMillis(redisson);
    assertThat(written).isTrue();
    assertThat(redisson.getBucket("product:42").get()).isEqualTo("from-client");
    Map<String, String> meta = meta("product:42");
    assertThat(meta)
        .containsEntry(MetaFields.EPOCH, "3")
        .containsEntry(MetaFields.TOKEN, "9")
        .containsEntry(MetaFields.DELTA, "120")
        .containsEntry(MetaFields.SIZE, Integer.toString("from-client".length()))
        .doesNotContainKeys(MetaFields.VALIDATOR, MetaFields.REVALIDATED_AT);
    assertWrittenOnRedisClock(meta, before, after);
    assertThat(redisson.getBucket("product:42").remainTimeToLive()).isPositive().isLessThanOrEqualTo(TTL);
    assertThat(redisson.getBucket(CacheKeys.metaKey("product:42")).remainTimeToLive())
        .as("the service's metadata TTL, kept")
        .isGreaterThan(TTL);
  }

  @Test
  void write_noMetadata_writesValueAndClientMetadata() {
    long before = TestRedis.redisMillis(redisson);
    boolean written = store.write("user:{7}:cart", new ValueStore.Written("[1,2,3]", TTL, 15));
    long after = TestRedis.redisMillis(redisson);

    assertThat(written).isTrue();
    assertThat(redisson.getBucket("user:{7}:cart").get()).isEqualTo("[1,2,3]");
    Map<String, String> meta = meta("user:{7}:cart");
    assertThat(meta)
        .containsOnlyKeys(
            MetaFields.COMPUTED_AT, MetaFields.DELTA, MetaFields.EXPIRES_AT, MetaFields.SIZE, MetaFields.EPOCH, MetaFields.TOKEN)
        .containsEntry(MetaFields.DELTA, "15")
        .containsEntry(MetaFields.SIZE, "7")
        .containsEntry(MetaFields.EPOCH, "0")
        .containsEntry(MetaFields.TOKEN, "0");
    assertWrittenOnRedisClock(meta, before, after);
    assertThat(redisson.getBucket(CacheKeys.metaKey("user:{7}:cart")).remainTimeToLive()).isPositive().isLessThanOrEqualTo(TTL);
  }

  @Test
  void write_sizeIsInBytes() {
    store.write("greeting", new ValueStore.Written("grüß", TTL, 1));

    assertThat(meta("greeting")).containsEntry(MetaFields.SIZE, "6");
  }

  @Test
  void write_clientValueNotExpired_isReplaced() {
    store.write("product:42", new ValueStore.Written("first", TTL, 10));

    boolean written = store.write("product:42", new ValueStore.Written("second", TTL, 10));

    assertThat(written).isTrue();
    assertThat(redisson.getBucket("product:42").get()).isEqualTo("second");
  }

  /**
   * An evicted value (a change of a key nobody keeps fresh) or one Redis evicted leaves the
   * service's fence and a logical expiry still ahead: with no value there is nothing to protect,
   * so the key must stay loadable (issue 18, point 5).
   */
  @Test
  void write_serviceFenceWithoutValue_isWrittenKeepingTheFence() {
    writeServiceValue("product:42", "from-service", T0 + 60_000);
    redisson.getBucket("product:42").delete();

    boolean written = store.write("product:42", new ValueStore.Written("from-client", TTL, 120));

    assertThat(written).as("written: there is no value to protect").isTrue();
    assertThat(redisson.getBucket("product:42").get()).isEqualTo("from-client");
    assertThat(meta("product:42")).containsEntry(MetaFields.EPOCH, "3").containsEntry(MetaFields.TOKEN, "9");
  }

  /**
   * What {@code DELETE ?evict=true} leaves, {@code generation} and {@code retired} for the
   * service's {@code refresh.deletedTombstone}, keeps its TTL under a client's shorter one: the
   * tombstone refuses a late write of the deleted registration only while it lives (point 8).
   */
  @Test
  void write_shortTtl_neverShortensTheMetadataTtl() {
    String meta = CacheKeys.metaKey("product:42");
    redisson.<String, String>getMap(meta).putAll(Map.of("generation", "7", "retired", "1"));
    redisson.getBucket(meta).expire(Duration.ofMinutes(10));

    boolean written = store.write("product:42", new ValueStore.Written("from-client", 1_000, 5));

    assertThat(written).isTrue();
    assertThat(redisson.getBucket("product:42").remainTimeToLive()).isPositive().isLessThanOrEqualTo(1_000);
    assertThat(meta("product:42")).containsEntry("generation", "7").containsEntry("retired", "1");
    assertThat(redisson.getBucket(meta).remainTimeToLive())
        .as("the tombstone's TTL, ms")
        .isGreaterThan(Duration.ofMinutes(9).toMillis());
  }

  /**
   * A client whose clock is 10 s fast took the service's values for expired in their last 10 s;
   * the refusal reads Redis's clock, the one the service writes {@code expiresAt} by, and the
   * writer sends no time of its own (point 9).
   */
  @Test
  void write_serviceValueInItsLastSeconds_isRefusedByRedisClock() {
    writeServiceValue("product:42", "from-service", TestRedis.redisMillis(redisson) + 5_000);

    boolean written = store.write("product:42", new ValueStore.Written("from-client", TTL, 120));

    assertThat(written).as("a fresh value of the service's, by Redis's clock").isFalse();
    assertThat(redisson.getBucket("product:42").get()).isEqualTo("from-service");
  }

  @Test
  void read_returnsValueTimingAndRedisTimeInOneCall() {
    long before = TestRedis.redisMillis(redisson);
    StoredValue absent = store.read("product:42");
    assertThat(absent.present()).isFalse();
    assertThat(absent.deltaMillis()).isNull();
    assertThat(absent.expiresAtMillis()).isNull();
    writeServiceValue("product:42", "from-service", T0 + 60_000);

    StoredValue stored = store.read("product:42");

    long after = TestRedis.redisMillis(redisson);
    assertThat(stored.value()).isEqualTo("from-service");
    assertThat(stored.deltaMillis()).isEqualTo(200L);
    assertThat(stored.expiresAtMillis()).isEqualTo(T0 + 60_000);
    assertThat(stored.writtenByService()).isTrue();
    assertThat(List.of(absent.readAtMillis(), stored.readAtMillis())).allSatisfy(at -> assertThat(at).isBetween(before, after));
  }

  /** computedAt is Redis's time at the write, and expiresAt a ttl later. */
  private static void assertWrittenOnRedisClock(Map<String, String> meta, long before, long after) {
    long computedAt = Long.parseLong(meta.get(MetaFields.COMPUTED_AT));
    assertThat(computedAt).as("computedAt, by Redis's clock").isBetween(before, after);
    assertThat(meta).containsEntry(MetaFields.EXPIRES_AT, Long.toString(computedAt + TTL));
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
