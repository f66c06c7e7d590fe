package io.refresher.client;

import static io.refresher.client.ProtocolVectors.ordered;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The write rule's cases (docs/client.md, "The write rule"), written out by hand: each is the
 * rule's specification, and every client checks its write script against them on a real Redis
 * ({@code DriverContract.writeRule_asTheCorpusSays} for Java). Times are relative to Redis's
 * clock at the write: {@code {"fromNowMillis": n}}.
 */
final class WriteRuleVectors {

  static final String KEY = "product:42";
  private static final Map<String, Object> WRITE =
      ordered("value", "{\"id\":42,\"price\":\"9.99\"}", "ttlMillis", 60_000, "deltaMillis", 15);

  private WriteRuleVectors() {}

  static Map<String, Object> document() {
    List<Object> cases = new ArrayList<>();
    cases.add(
        scenario(
            "no value, no metadata: written, with a fence of 0",
            null, Map.of(), null,
            true, ordered("epoch", "0", "token", "0", "delta", "15", "size", "24"), List.of(), null));
    cases.add(
        scenario(
            "a fresh value of the service's: refused, nothing changes",
            "from the service", ordered("epoch", "3", "token", "9", "expiresAt", fromNow(60_000)), null,
            false, ordered("epoch", "3", "token", "9"), List.of("delta", "computedAt"), null));
    cases.add(
        scenario(
            "the service's metadata is fresh but its value was evicted: written, the fence kept",
            null, ordered("epoch", "3", "token", "9", "expiresAt", fromNow(60_000)), null,
            true, ordered("epoch", "3", "token", "9", "delta", "15"), List.of(), null));
    cases.add(
        scenario(
            "a value of the service's past its expiry: written, the fence kept",
            "from the service", ordered("epoch", "3", "token", "9", "expiresAt", fromNow(-1)), null,
            true, ordered("epoch", "3", "token", "9"), List.of(), null));
    cases.add(
        scenario(
            "a client's own fresh value: written (clients do not protect each other's)",
            "from a client", ordered("epoch", "0", "token", "0", "expiresAt", fromNow(60_000)), null,
            true, ordered("epoch", "0"), List.of(), null));
    cases.add(
        scenario(
            "a validator described the value replaced: it goes, with revalidatedAt",
            "from the service",
            ordered("epoch", "3", "token", "9", "expiresAt", fromNow(-1), "validator", "\"etag-1\"", "revalidatedAt", fromNow(-5_000)),
            null,
            true, ordered("epoch", "3"), List.of("validator", "revalidatedAt"), null));
    cases.add(
        scenario(
            "a deleted key's tombstone is kept, and its longer TTL is not cut to the write's",
            null, ordered("epoch", "3", "token", "9", "generation", "4", "retired", "1"), 600_000,
            true, ordered("generation", "4", "retired", "1", "epoch", "3"), List.of(), 590_000));
    cases.add(
        scenario(
            "metadata that would expire before the value gets the value's TTL",
            null, ordered("epoch", "0", "token", "0"), 1_000,
            true, ordered("epoch", "0"), List.of(), 50_000));
    return ordered(
        "about",
        "The write rule of a client's value (the write script, KEYS value and metadata, ARGV value,"
            + " ttl ms, delta ms). before: the value (null: absent) and metadata fields, times as"
            + " {fromNowMillis} on Redis's clock, and the metadata's PTTL (null: none). After a"
            + " written write: the value is write.value with PTTL about ttlMillis, computedAt is"
            + " Redis's time, expiresAt = computedAt + ttlMillis; after.meta fields are exactly so,"
            + " after.metaAbsent fields are gone, and the metadata's PTTL is at least"
            + " after.metaPttlAtLeastMillis when given. A refused write changes nothing.",
        "key", KEY,
        "write", WRITE,
        "cases", cases);
  }

  private static Map<String, Object> fromNow(long millis) {
    return ordered("fromNowMillis", millis);
  }

  private static Map<String, Object> scenario(
      String name,
      String value,
      Map<String, Object> meta,
      Integer metaPttlMillis,
      boolean written,
      Map<String, Object> afterMeta,
      List<String> afterAbsent,
      Integer metaPttlAtLeast) {
    Map<String, Object> before = ordered("value", value, "meta", meta, "metaPttlMillis", metaPttlMillis);
    Map<String, Object> after = ordered("meta", afterMeta, "metaAbsent", afterAbsent, "metaPttlAtLeastMillis", metaPttlAtLeast);
    return ordered("name", name, "before", before, "written", written, "after", after);
  }
}
