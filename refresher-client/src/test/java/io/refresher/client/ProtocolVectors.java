package io.refresher.client;

import io.refresher.client.protocol.NotFoundMarker;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.refresher.client.driver.RedisScript;
import io.refresher.client.protocol.AccessProtocol;
import io.refresher.client.protocol.CacheKeys;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The conformance corpus every client checks itself against ({@code protocol/vectors/*.json}),
 * computed by this implementation from the inputs below. Written once, and again whenever the
 * protocol changes on purpose, from the repository's root:
 *
 * <pre>
 * mvn -pl refresher-client test-compile exec:java -Dexec.classpathScope=test \
 *     -Dexec.mainClass=io.refresher.client.ProtocolVectors -Dexec.args=$PWD/protocol/vectors
 * </pre>
 *
 * {@link ProtocolVectorsTest} fails when the implementation and the files differ; every other
 * client's suite reads the same files.
 */
public final class ProtocolVectors {

  static final Path DIRECTORY = Path.of("../protocol/vectors");

  /** Keys covering every hash-tag case of docs/protocol.md. */
  static final List<String> KEYS =
      List.of(
          "product:42",
          "banner:home",
          "user:{42}:cart",
          "{user1000}.following",
          "foo{}{bar}",
          "foo{{bar}}zap",
          "foo{bar}{zap}",
          "a}b",
          "}",
          "x{",
          "{}",
          "order:{}:7",
          "über:straße:😀",
          "product:" + "9".repeat(200));

  private ProtocolVectors() {}

  public static void main(String[] args) throws IOException {
    Path directory = Path.of(args.length > 0 ? args[0] : DIRECTORY.toString());
    Files.createDirectories(directory);
    ObjectMapper json = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
    for (Map.Entry<String, Object> file : all().entrySet()) {
      json.writeValue(directory.resolve(file.getKey()).toFile(), file.getValue());
    }
  }

  /** File name to content. */
  static Map<String, Object> all() {
    Map<String, Object> files = new LinkedHashMap<>();
    files.put("keys.json", keys());
    files.put("buckets.json", buckets());
    files.put("xfetch.json", xfetch());
    files.put("read-decisions.json", readDecisions());
    files.put("scripts.json", scripts());
    files.put("write-rule.json", WriteRuleVectors.document());
    return files;
  }

  static Map<String, Object> keys() {
    List<Object> cases = new ArrayList<>();
    for (String key : KEYS) {
      cases.add(
          ordered(
              "key", key,
              "slot", CacheKeys.slot(key),
              "shard", AccessProtocol.shardOf(key),
              "metaKey", CacheKeys.metaKey(key),
              "lockName", CacheKeys.lockName(key),
              "flightLockName", CacheKeys.flightLockName(key)));
    }
    return ordered(
        "about",
        "For each key: its cluster slot (CRC16/XMODEM of the hash tag or key, mod 16384), its access"
            + " shard (CRC-32 of the UTF-8 key, mod 16), and its companion keys, which share its slot.",
        "cases", cases);
  }

  static Map<String, Object> buckets() {
    List<Object> cases = new ArrayList<>();
    long[][] inputs = {{0, 0}, {15, 999}, {7, 1_000}, {3, 1_764_806_400_000L}, {11, 1_764_806_400_999L}, {0, -1}};
    for (long[] input : inputs) {
      int shard = (int) input[0];
      long millis = input[1];
      long second = AccessProtocol.secondOf(millis);
      cases.add(ordered("shard", shard, "epochMillis", millis, "second", second, "bucketKey", AccessProtocol.bucketKey(shard, second)));
    }
    return ordered(
        "about",
        "The access bucket of a shard and a moment: the unix second is floor(ms / 1000); reads are"
            + " added with HINCRBY <bucketKey> <key> <count> and the bucket expires after bucketTtlSeconds.",
        "prefix", AccessProtocol.PREFIX,
        "shards", AccessProtocol.SHARDS,
        "bucketTtlSeconds", AccessProtocol.BUCKET_TTL_SECONDS,
        "cases", cases);
  }

  static Map<String, Object> xfetch() {
    List<Object> cases = new ArrayList<>();
    long now = 1_764_806_400_000L;
    for (long left : new long[] {-1, 0, 10, 100, 1_000, 10_000}) {
      for (long delta : new long[] {0, 50, 200}) {
        for (double beta : new double[] {0.5, 1.0, 1.5}) {
          for (double uniform : new double[] {1.0, 0.5, 0.05, 1e-9}) {
            if (nearTheBoundary(now, delta, now + left, beta, uniform)) {
              continue;
            }
            cases.add(
                ordered(
                    "nowMillis", now,
                    "deltaMillis", delta,
                    "expiresAtMillis", now + left,
                    "beta", beta,
                    "uniform", uniform,
                    "recompute", EarlyRecompute.decide(now, delta, now + left, beta, uniform)));
          }
        }
      }
    }
    return ordered(
        "about",
        "XFetch: recompute when now - delta * beta * ln(uniform) >= expiresAt, for a draw uniform in"
            + " (0, 1]. Cases within a millionth of a millisecond of the boundary are left out: a"
            + " platform's logarithm may differ in its last bit.",
        "cases", cases);
  }

  /** A read-decision input whose stored value is the not-found marker. */
  private static final Object NOT_FOUND = new Object();

  static Map<String, Object> readDecisions() {
    List<Object> cases = new ArrayList<>();
    long now = 1_764_806_400_000L;
    // value present, epoch, delta, expiresAt (relative to now), uniform
    Object[][] inputs = {
      {false, 0L, null, null, 0.5},
      {false, 3L, 50L, 60_000L, 0.5},
      {true, 3L, 50L, 60_000L, 1e-9},
      {true, 3L, 50L, 0L, 0.5},
      {true, 3L, 50L, -1L, 0.5},
      {true, 3L, null, null, 0.5},
      {true, 0L, 50L, 60_000L, 0.5},
      {true, 0L, 50L, 100L, 0.05},
      {true, 0L, 50L, 100L, 0.5},
      {true, 0L, 50L, -1L, 1.0},
      {true, 0L, null, 60_000L, 1e-9},
      {true, 0L, 50L, null, 1e-9},
      // the service's not-found marker: known absent before its expiry, recomputed after it
      {NOT_FOUND, 3L, 50L, 60_000L, 0.5},
      {NOT_FOUND, 3L, 50L, 0L, 0.5},
      {NOT_FOUND, 3L, null, null, 0.5},
    };
    for (Object[] input : inputs) {
      boolean notFound = input[0] == NOT_FOUND;
      boolean present = notFound || (Boolean) input[0];
      long epoch = (Long) input[1];
      Long delta = (Long) input[2];
      Long expiresAt = input[3] == null ? null : now + (Long) input[3];
      double uniform = (Double) input[4];
      double beta = 1.0;
      String value = notFound ? NotFoundMarker.VALUE : present ? "v" : null;
      StoredValue stored = new StoredValue(value, delta, expiresAt, epoch, now);
      ReadDecision decision =
          ReadDecision.of(stored, (n, d, e) -> EarlyRecompute.decide(n, d, e, beta, uniform));
      Map<String, Object> item = new LinkedHashMap<>();
      item.put("valuePresent", present);
      item.put("value", value);
      item.put("epoch", epoch);
      item.put("deltaMillis", delta);
      item.put("expiresAtMillis", expiresAt);
      item.put("redisNowMillis", now);
      item.put("beta", beta);
      item.put("uniform", uniform);
      item.put("decision", decision.name());
      cases.add(item);
    }
    return ordered(
        "about",
        "What get(key, ttl, loader) does with the value and the metadata fields delta, expiresAt and"
            + " epoch it read, at Redis's time: LOAD (no value), SERVE, RECOMPUTE_EXPIRED (a value of"
            + " the service, epoch > 0, at or past expiresAt), RECOMPUTE_EARLY (a client's value that"
            + " XFetch says to recompute), ABSENT (the service's not-found marker, value, before its"
            + " expiresAt: known absent, return none and load nothing). value is the stored value"
            + " (\"v\" stands for any other). Absent or unreadable fields are null; an absent epoch is 0.",
        "cases", cases);
  }

  static Map<String, Object> scripts() {
    List<Object> scripts = new ArrayList<>();
    for (RedisScript script : List.of(ValueStore.READ, ValueStore.WRITE, FlightLock.RELEASE, AccessBucketWriter.ADD_COUNTS)) {
      scripts.add(ordered("name", script.name(), "sha1", script.sha1(), "text", script.text()));
    }
    return ordered(
        "about",
        "The client's Lua scripts, byte for byte (their SHA-1 is what EVALSHA names them by). A"
            + " client sends exactly these texts.",
        "scripts", scripts);
  }

  /** Whether the decision is so close to the boundary that a last-bit difference could flip it. */
  private static boolean nearTheBoundary(long now, long delta, long expiresAt, double beta, double uniform) {
    double left = now - delta * beta * Math.log(uniform);
    return Math.abs(left - expiresAt) < 1e-6;
  }

  static Map<String, Object> ordered(Object... keysAndValues) {
    Map<String, Object> map = new LinkedHashMap<>();
    for (int i = 0; i < keysAndValues.length; i += 2) {
      map.put((String) keysAndValues[i], keysAndValues[i + 1]);
    }
    return map;
  }
}
