package io.refresher.redis;

import io.refresher.refresh.audit.AuditLedger;
import io.refresher.refresh.audit.AuditReport;
import io.refresher.refresh.audit.AuditResult;
import io.refresher.refresh.audit.Verdict;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.redisson.api.RBatch;
import org.redisson.api.RFuture;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.redisson.client.RedisException;
import org.redisson.client.codec.StringCodec;

/**
 * The audit's counts in Redis, one bucket per minute, so that every replica's samples add up and a
 * window's figures are the sum of its buckets: a hash {@code refresher:audit:{<minute>}:counts} of
 * {@code <source>\t<template>\t<verdict>} to a count, and a list {@code
 * refresher:audit:{<minute>}:ages} of the mismatches' {@code <source>\t<template>\t<age ms>} (the
 * latest {@value #MAX_AGES} of the minute). Both expire a minute after the window. The hash tag
 * keeps a bucket's two keys in one cluster slot. Lost with Redis's data, like the values they
 * describe.
 */
public final class RedisAuditLedger implements AuditLedger {

  static final String PREFIX = "refresher:audit:";
  static final int MAX_AGES = 10_000;
  private static final long MINUTE = 60_000;

  /** KEYS: counts, ages. ARGV: field, age entry or '', expiry ms, most ages kept. */
  static final String RECORD =
      """
      redis.call('HINCRBY', KEYS[1], ARGV[1], 1)
      redis.call('PEXPIRE', KEYS[1], ARGV[3])
      if ARGV[2] ~= '' then
        redis.call('RPUSH', KEYS[2], ARGV[2])
        redis.call('LTRIM', KEYS[2], -tonumber(ARGV[4]), -1)
        redis.call('PEXPIRE', KEYS[2], ARGV[3])
      end
      return 1
      """;

  private final RedissonClient redisson;
  private final RedisReachability reachability;
  private final Duration window;
  private final InstantSource clock;

  /**
   * @param window the longest window a report covers: buckets are kept that long (and a minute)
   * @param clock the clock the samples are timed on, which says where a report ends
   */
  public RedisAuditLedger(RedissonClient redisson, RedisReachability reachability, Duration window, InstantSource clock) {
    this.redisson = redisson;
    this.reachability = reachability;
    this.window = window;
    this.clock = clock;
  }

  static String countsKey(long minute) {
    return PREFIX + "{" + minute + "}:counts";
  }

  static String agesKey(long minute) {
    return PREFIX + "{" + minute + "}:ages";
  }

  @Override
  public void record(AuditResult result) {
    reachability.require("RedisAuditLedger.record");
    long minute = result.atMillis() / MINUTE;
    String group = result.source() + "\t" + (result.template() == null ? "" : result.template());
    String age = result.verdict() == Verdict.MISMATCH ? group + "\t" + result.mismatchAgeMillis() : "";
    try {
      redisson
          .getScript(StringCodec.INSTANCE)
          .eval(
              countsKey(minute),
              RScript.Mode.READ_WRITE,
              RECORD,
              RScript.ReturnType.INTEGER,
              List.<Object>of(countsKey(minute), agesKey(minute)),
              group + "\t" + result.verdict().name(),
              age,
              String.valueOf(window.toMillis() + MINUTE),
              String.valueOf(MAX_AGES));
    } catch (RedisException e) {
      throw RedisCacheStore.unavailable("audit count of key '" + result.key() + "'", e);
    }
  }

  @Override
  public AuditReport since(long fromMillis) {
    reachability.require("RedisAuditLedger.since");
    long now = clock.millis();
    long first = fromMillis / MINUTE;
    long last = Math.max(first, now / MINUTE);
    try {
      RBatch batch = redisson.createBatch();
      List<RFuture<Map<String, String>>> counts = new ArrayList<>();
      List<RFuture<List<String>>> ages = new ArrayList<>();
      for (long minute = first; minute <= last; minute++) {
        counts.add(batch.<String, String>getMap(countsKey(minute), StringCodec.INSTANCE).readAllMapAsync());
        ages.add(batch.<String>getList(agesKey(minute), StringCodec.INSTANCE).readAllAsync());
      }
      batch.execute();
      AuditReport.Builder report = new AuditReport.Builder();
      for (RFuture<Map<String, String>> bucket : counts) {
        bucket.toCompletableFuture().join().forEach(
            (field, count) -> {
              String[] parts = field.split("\t", -1);
              if (parts.length == 3) {
                report.count(parts[0], parts[1].isEmpty() ? null : parts[1], Verdict.valueOf(parts[2]), Long.parseLong(count));
              }
            });
      }
      for (RFuture<List<String>> bucket : ages) {
        for (String entry : bucket.toCompletableFuture().join()) {
          String[] parts = entry.split("\t", -1);
          if (parts.length == 3) {
            report.age(parts[0], parts[1].isEmpty() ? null : parts[1], Long.parseLong(parts[2]));
          }
        }
      }
      return report.build(fromMillis, now);
    } catch (RedisException e) {
      throw RedisCacheStore.unavailable("audit figures", e);
    } catch (java.util.concurrent.CompletionException e) {
      throw RedisCacheStore.unavailable("audit figures", e.getCause() == null ? e : e.getCause());
    }
  }
}
