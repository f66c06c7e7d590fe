package io.refresher.bench;

import io.refresher.client.redisson.RedissonDriver;
import io.refresher.bench.report.BenchReport;
import io.refresher.bench.report.Fmt;
import io.refresher.redis.RedisKeyLocks;
import io.refresher.client.AccessCounter;
import io.refresher.client.protocol.CacheKeys;
import io.refresher.refresh.KeyLocks;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.redisson.config.Config;

/**
 * Redis memory per key, for capacity planning: what one kept key costs in Redis, and what a hot
 * key and its reads add.
 *
 * <p>Three rounds, each on a fresh PostgreSQL database and an emptied Redis database {@value
 * #REDIS_DB}, with the service started in this JVM: N keys (full 100,000, quick 20,000, tiny 500)
 * {@code item:<id>} whose source returns a value of exactly 100 bytes, then 1 KiB, with policy
 * {@code always}; and N keys of 100 bytes with policy {@code hot}, each read ten times through the
 * client library so that the sampler puts them in the hot set. The keys are registered with SQL and
 * put in the due index due now, so the service refreshes each once (TTL {@value #TTL_HOURS} h:
 * none is due again during the round). Once every value is written: Redis's {@code used_memory}
 * (INFO memory) before the registration and after, over N; and {@code MEMORY USAGE ... SAMPLES 0}
 * of every key of the database by structure (a sample of {@value #SAMPLE} for the per-key ones:
 * value, metadata hash, lock token counter), over N. Then tombstones (keys deleted through the
 * admin API, with and without {@code evict}) and the lock hash a refresh holds are measured on a
 * few keys.
 *
 * <p>The access counter buckets are measured apart, on database {@value #BUCKET_DB} where no
 * sampler consumes them: the client library reports one read of each of N keys, and the buckets'
 * size is divided by their fields (one per key read in a second).
 */
final class MemoryPhase implements Phase {

  static final int REDIS_DB = 3;
  static final int BUCKET_DB = 4;
  static final int TTL_HOURS = 1;
  static final Duration TTL = Duration.ofHours(TTL_HOURS);
  static final Duration TTR = Duration.ofSeconds(5);
  /** Keys measured one by one for each per-key structure. */
  static final int SAMPLE = 1_000;
  /** Reads reported per key of the hot round (rate 10 × ln 2 / 60 s ≈ 0.12/s, the threshold 0.01/s). */
  static final int HOT_READS = 10;
  static final int SMALL = 100;
  static final int LARGE = 1_024;

  @Override
  public String id() {
    return "memory";
  }

  @Override
  public void run(BenchContext context, BenchReport report) throws Exception {
    String load = LoadAverage.now();
    int n = context.pick(100_000, 20_000, 500);
    int deleted = context.pick(100, 100, 20);
    Duration within = Duration.ofSeconds(context.pick(600, 240, 60));
    Map<String, String> server = serverFacts(context);
    List<Round> rounds = new ArrayList<>();
    rounds.add(round(context, "always", SMALL, n, deleted, within));
    rounds.add(round(context, "always", LARGE, n, deleted, within));
    rounds.add(round(context, "hot", SMALL, n, 0, within));
    Buckets buckets = buckets(context, n);
    write(report, server, rounds, buckets, n, load);
  }

  // ---------------------------------------------------------------- measuring

  /** The structures of Refresher's keys, in the report's order: name, how its Redis keys are named, which keys. */
  private static final List<Kind> KINDS =
      List.of(
          new Kind("value", "`item:<id>` (string)", true, key -> key.startsWith("item:")),
          new Kind("metadata hash", "`refresher:meta:{item:<id>}`", true, key -> key.startsWith(CacheKeys.META_PREFIX)),
          new Kind(
              "lock token counter",
              "`redisson_lock_token:refresher:lock:{item:<id>}` (string)",
              true,
              key -> key.startsWith("redisson_lock_token:")),
          new Kind("lock hash", "`refresher:lock:{item:<id>}` (only while a refresh runs)", false, key -> key.startsWith(CacheKeys.LOCK_PREFIX)),
          new Kind("due index", "`refresher:due:{0..3}` (sorted sets)", false, key -> key.matches("refresher:due:\\{\\d+\\}")),
          new Kind("due index, planned times", "`refresher:due:{n}:planned`", false, key -> key.matches("refresher:due:\\{\\d+\\}:planned")),
          new Kind("due shard markers", "`refresher:due:{0..255}:shards` (fixed)", false, key -> key.startsWith("refresher:due:")),
          new Kind(
              "popularity",
              "`refresher:popularity:{refresher-hot}` (sorted set)",
              false,
              key -> key.startsWith("refresher:popularity:")),
          new Kind("hot set", "`refresher:hot:{refresher-hot}` (sorted set)", false, key -> key.startsWith("refresher:hot:")),
          new Kind("access buckets", "`refresher:access:{<shard>}:<second>` (hashes)", false, key -> key.startsWith("refresher:access:")),
          new Kind("other", "`refresher:epoch` and the rest", false, key -> true));

  record Kind(String name, String redisKey, boolean perKey, Predicate<String> matches) {}

  /**
   * One structure in one round: how many Redis keys it had after the registration and before, their
   * bytes (estimated from a sample when {@code measured < keys}), and what it grew by, over N.
   */
  record Structure(String name, long keys, long measured, long bytes, long keysBefore, long bytesBefore, double perKey) {
    boolean fixed() {
      return keys == keysBefore && bytes == bytesBefore;
    }
  }

  record Round(
      String policy,
      int valueBytes,
      int n,
      long usedBefore,
      long usedAfter,
      long datasetBefore,
      long datasetAfter,
      double seconds,
      List<Structure> structures,
      Map<String, Long> tombstones,
      long lockHashBytes) {

    double usedPerKey() {
      return (usedAfter - usedBefore) / (double) n;
    }

    double datasetPerKey() {
      return (datasetAfter - datasetBefore) / (double) n;
    }

    /** What MEMORY USAGE of all keys grew by. */
    long structureBytes() {
      return structures.stream().mapToLong(s -> s.bytes() - s.bytesBefore()).sum();
    }

    Structure structure(String name) {
      return structures.stream().filter(s -> s.name().equals(name)).findFirst().orElseThrow();
    }
  }

  private static Round round(BenchContext context, String policy, int valueBytes, int n, int deleted, Duration within)
      throws Exception {
    long started = System.nanoTime();
    String db = context.newDatabase("bench_memory");
    createItems(db, n, valueBytes);
    String redisUrl = context.redis().url() + "/" + REDIS_DB;
    try (RawRedis redis = new RawRedis(context.redis().port(), REDIS_DB)) {
      redis.call("FLUSHDB");
      BenchService service = BenchService.start(configFile(redisUrl, db, policy, n), Duration.ofMinutes(2));
      try {
        Thread.sleep(context.tiny() ? 100 : 300); // the start's own writes (epoch, shard markers) are in the baseline
        List<Structure> baseline = structures(redis, n, List.of());
        long usedBefore = usedMemory(redis);
        long datasetBefore = Long.parseLong(redis.info("memory").get("used_memory_dataset"));
        long refreshedBefore = service.refreshed();

        BenchItems.register(db, 1, n, TTL, policy, Duration.ZERO);
        long now = System.currentTimeMillis();
        List<String> page = new ArrayList<>();
        for (int id = 1; id <= n; id++) {
          page.add(BenchItems.key(id));
          if (page.size() == 10_000 || id == n) {
            service.parts().dueIndex().addMissing(page, now);
            page.clear();
          }
        }
        if (policy.equals("hot")) {
          reportReads(context, REDIS_DB, n, HOT_READS);
        }
        long deadline = System.nanoTime() + within.toNanos();
        while (service.refreshed() - refreshedBefore < n
            || (policy.equals("hot") && redis.number("ZCARD", "refresher:hot:{refresher-hot}") < n)) {
          if (System.nanoTime() > deadline) {
            throw new IllegalStateException(
                policy + " " + valueBytes + " B: after " + within.toSeconds() + " s, " + (service.refreshed() - refreshedBefore)
                    + " of " + n + " refreshed (" + service.failed() + " failed), hot set "
                    + redis.number("ZCARD", "refresher:hot:{refresher-hot}"));
          }
          Thread.sleep(100);
        }
        Thread.sleep(context.tiny() ? 100 : 500); // replies and lazy frees settle
        long usedAfter = usedMemory(redis);
        long datasetAfter = Long.parseLong(redis.info("memory").get("used_memory_dataset"));
        List<Structure> structures = structures(redis, n, baseline);
        long values = structures.get(0).keys();
        if (values != n) {
          throw new IllegalStateException(values + " values in Redis, expected " + n);
        }
        checkValueSize(redis, valueBytes);
        Map<String, Long> tombstones = deleted > 0 ? tombstones(service, redis, n, deleted) : Map.of();
        long lockHash = policy.equals("always") ? lockHash(service, redis) : 0;
        double seconds = (System.nanoTime() - started) / 1e9;
        Round round =
            new Round(policy, valueBytes, n, usedBefore, usedAfter, datasetBefore, datasetAfter, seconds, structures, tombstones, lockHash);
        System.out.printf(
            Locale.ROOT,
            "memory: %s, %d B values, N=%,d: used_memory %.0f B/key, MEMORY USAGE %.0f B/key (%.1f s)%n",
            policy, valueBytes, n, round.usedPerKey(), round.structureBytes() / (double) n, seconds);
        return round;
      } finally {
        service.close();
        redis.call("FLUSHDB");
      }
    }
  }

  /** bench.yml for the round; the hot round's sampler is quicker and its threshold low (see {@link #HOT_READS}). */
  private static Path configFile(String redisUrl, String db, String policy, int n) throws Exception {
    String yaml = BenchConfig.of(redisUrl, db, TTR).render();
    if (policy.equals("hot")) {
      yaml +=
          "\naccess:\n  hotThreshold: 0.01\n  sampleInterval: 500ms\n  settle: 1s\n  maxHotKeys: "
              + Math.max(100_000, 2 * n)
              + "\n";
    }
    Path file = Files.createTempFile("refresher-bench-memory", ".yml");
    file.toFile().deleteOnExit();
    Files.writeString(file, yaml, StandardCharsets.UTF_8);
    return file;
  }

  /** {@code bench_item} with rows {@code 1..n} whose {@code v} is exactly {@code bytes} ASCII bytes. */
  private static void createItems(String jdbcUrl, int n, int bytes) throws Exception {
    try (Connection db = BenchItems.connect(jdbcUrl);
        Statement sql = db.createStatement()) {
      sql.execute("CREATE TABLE bench_item (id bigint PRIMARY KEY, v text NOT NULL)");
      sql.execute(
          "INSERT INTO bench_item SELECT i, rpad('item-' || i || ':', " + bytes + ", 'x') FROM generate_series(1, " + n + ") i");
      sql.execute("ANALYZE bench_item");
    }
  }

  private static long usedMemory(RawRedis redis) throws Exception {
    return Long.parseLong(redis.info("memory").get("used_memory"));
  }

  /** Every key of the database by structure, and their MEMORY USAGE (per-key structures: a sample). */
  private static List<Structure> structures(RawRedis redis, int n, List<Structure> before) throws Exception {
    Map<Kind, List<String>> byKind = new LinkedHashMap<>();
    KINDS.forEach(kind -> byKind.put(kind, new ArrayList<>()));
    for (String key : redis.keys()) {
      for (Kind kind : KINDS) {
        if (kind.matches().test(key)) {
          byKind.get(kind).add(key);
          break;
        }
      }
    }
    List<Structure> structures = new ArrayList<>();
    for (Map.Entry<Kind, List<String>> entry : byKind.entrySet()) {
      List<String> keys = entry.getValue();
      List<String> measured = keys;
      if (keys.size() > SAMPLE) { // SCAN's order is the hash table's: evenly spaced is a fair sample
        measured = new ArrayList<>();
        for (int i = 0; i < SAMPLE; i++) {
          measured.add(keys.get((int) ((long) i * keys.size() / SAMPLE)));
        }
      }
      long sum = 0;
      for (long bytes : redis.memoryUsage(measured)) {
        sum += bytes;
      }
      long total = measured.isEmpty() ? 0 : Math.round(sum * (keys.size() / (double) measured.size()));
      String name = entry.getKey().name();
      Structure was = before.stream().filter(b -> b.name().equals(name)).findFirst().orElse(null);
      long keysBefore = was == null ? 0 : was.keys();
      long bytesBefore = was == null ? 0 : was.bytes();
      structures.add(
          new Structure(name, keys.size(), measured.size(), total, keysBefore, bytesBefore, (total - bytesBefore) / (double) n));
    }
    return structures;
  }

  /** The values are as long as stated: the metadata's {@code size} of a few keys. */
  private static void checkValueSize(RawRedis redis, int valueBytes) throws Exception {
    for (int id : new int[] {1, 2, 3}) {
      Object size = redis.call("HGET", CacheKeys.metaKey(BenchItems.key(id)), "size");
      Object strlen = redis.call("STRLEN", BenchItems.key(id));
      if (!Long.toString(valueBytes).equals(size) || !Long.valueOf(valueBytes).equals(strlen)) {
        throw new IllegalStateException(BenchItems.key(id) + ": size " + size + ", STRLEN " + strlen + ", expected " + valueBytes);
      }
    }
  }

  /**
   * Deletes keys through the admin API, {@code deleted} with {@code ?evict=true} (only the
   * tombstone stays: generation and retired) and {@code deleted} without (value and metadata keep
   * their expiry, the metadata marked retired); the average MEMORY USAGE of what each leaves.
   */
  private static Map<String, Long> tombstones(BenchService service, RawRedis redis, int n, int deleted) throws Exception {
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    Map<String, Long> result = new LinkedHashMap<>();
    for (boolean evict : new boolean[] {true, false}) {
      List<String> keys = new ArrayList<>();
      int from = evict ? n - deleted + 1 : n - 2 * deleted + 1;
      for (int id = from; id < from + deleted; id++) {
        String key = BenchItems.key(id);
        HttpResponse<String> response =
            http.send(
                HttpRequest.newBuilder(service.uri("/v1/keys/" + key + (evict ? "?evict=true" : "")))
                    .header("Authorization", "Bearer " + BenchConfig.ADMIN_TOKEN)
                    .timeout(Duration.ofSeconds(30))
                    .DELETE()
                    .build(),
                HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() >= 300) {
          throw new IllegalStateException("DELETE " + key + " answered " + response.statusCode() + " " + response.body());
        }
        keys.add(key);
      }
      String prefix = evict ? "evicted" : "deleted";
      result.put(prefix + "Keys", (long) deleted);
      result.put(prefix + "ValueBytes", average(redis, keys, key -> key));
      result.put(prefix + "MetadataBytes", average(redis, keys, CacheKeys::metaKey));
      result.put(prefix + "TokenCounterBytes", average(redis, keys, RedisKeyLocks::tokenCounterName));
    }
    return result;
  }

  private static long average(RawRedis redis, List<String> keys, java.util.function.Function<String, String> name)
      throws Exception {
    List<String> names = keys.stream().map(name).toList();
    long sum = 0;
    for (long bytes : redis.memoryUsage(names)) {
      sum += bytes;
    }
    return Math.round(sum / (double) names.size());
  }

  /** The lock hash a refresh holds while it runs (taken with the service's own lock code on 20 keys, then released). */
  private static long lockHash(BenchService service, RawRedis redis) throws Exception {
    RedisKeyLocks locks = new RedisKeyLocks(service.parts().redisson());
    List<KeyLocks.HeldLock> held = new ArrayList<>();
    List<String> names = new ArrayList<>();
    try {
      for (int id = 1; id <= 20; id++) {
        Optional<KeyLocks.HeldLock> lock = locks.tryAcquire(BenchItems.key(id), Duration.ofSeconds(30));
        if (lock.isPresent()) {
          held.add(lock.get());
          names.add(CacheKeys.lockName(BenchItems.key(id)));
        }
      }
      if (names.isEmpty()) {
        return 0;
      }
      return average(redis, names, key -> key);
    } finally {
      held.forEach(KeyLocks.HeldLock::release);
    }
  }

  /** Reports {@code reads} reads of each of keys {@code item:1..n} through the client library, flushed at once. */
  private static void reportReads(BenchContext context, int database, int n, int reads) {
    RedissonClient redisson = redisson(context, database);
    try {
      AccessCounter counter =
          AccessCounter.builder(RedissonDriver.of(redisson)).flushInterval(AccessCounter.MAX_FLUSH_INTERVAL).maxPendingKeys(n + 1).build();
      for (int r = 0; r < reads; r++) {
        for (int id = 1; id <= n; id++) {
          counter.record(BenchItems.key(id));
        }
      }
      counter.close();
      AccessCounter.Stats stats = counter.stats();
      if (stats.dropped() > 0 || stats.flushFailures() > 0) {
        throw new IllegalStateException("reads not reported: " + stats);
      }
    } finally {
      redisson.shutdown(0, 2, TimeUnit.SECONDS);
    }
  }

  private static RedissonClient redisson(BenchContext context, int database) {
    Config config = new Config();
    config.setCodec(StringCodec.INSTANCE);
    config.useSingleServer().setAddress(context.redis().url()).setDatabase(database).setTimeout(10_000).setRetryAttempts(1);
    return Redisson.create(config);
  }

  /** The access counter buckets of one read of each of N keys, where nothing consumes them. */
  record Buckets(int keys, long buckets, long fields, long bytes, long usedDelta) {
    double perField() {
      return bytes / (double) fields;
    }

    double usedPerField() {
      return usedDelta / (double) fields;
    }
  }

  private static Buckets buckets(BenchContext context, int n) throws Exception {
    try (RawRedis redis = new RawRedis(context.redis().port(), BUCKET_DB)) {
      redis.call("FLUSHDB");
      try {
        long before = usedMemory(redis);
        reportReads(context, BUCKET_DB, n, 1);
        Thread.sleep(200);
        long after = usedMemory(redis);
        List<String> keys = redis.keys().stream().filter(key -> key.startsWith("refresher:access:")).toList();
        long bytes = 0;
        for (long b : redis.memoryUsage(keys)) {
          bytes += b;
        }
        long fields = 0;
        for (String key : keys) {
          fields += redis.number("HLEN", key);
        }
        if (fields != n) {
          throw new IllegalStateException(fields + " fields in the access buckets, expected " + n);
        }
        Buckets buckets = new Buckets(n, keys.size(), fields, bytes, after - before);
        System.out.printf(
            Locale.ROOT,
            "memory: access buckets, %,d keys read once: %d buckets, %.0f B per field (used_memory %.0f)%n",
            n, keys.size(), buckets.perField(), buckets.usedPerField());
        return buckets;
      } finally {
        redis.call("FLUSHDB");
      }
    }
  }

  private static Map<String, String> serverFacts(BenchContext context) throws Exception {
    try (RawRedis redis = new RawRedis(context.redis().port(), REDIS_DB)) {
      Map<String, String> serverInfo = redis.info("server");
      Map<String, String> memoryInfo = redis.info("memory");
      Map<String, String> facts = new LinkedHashMap<>();
      facts.put("redisVersion", serverInfo.get("redis_version"));
      facts.put("memAllocator", memoryInfo.get("mem_allocator"));
      facts.put("maxmemoryPolicy", redis.config("maxmemory-policy"));
      facts.put("maxmemory", redis.config("maxmemory"));
      // Redis 7 calls the compact encoding listpack, Redis 6 ziplist (the setting's old name)
      boolean listpack = !redis.config("zset-max-listpack-entries").isEmpty();
      String compact = listpack ? "listpack" : "ziplist";
      facts.put("compactEncoding", compact);
      facts.put("zsetMaxCompactEntriesSetting", "zset-max-" + compact + "-entries");
      facts.put("zsetMaxCompactEntries", redis.config("zset-max-" + compact + "-entries"));
      facts.put("hashMaxCompactEntriesSetting", "hash-max-" + compact + "-entries");
      facts.put("hashMaxCompactEntries", redis.config("hash-max-" + compact + "-entries"));
      return facts;
    }
  }

  // ---------------------------------------------------------------- the report

  private void write(BenchReport report, Map<String, String> server, List<Round> rounds, Buckets buckets, int n, String load) {
    var section = report.section(id(), "Redis memory per key");
    Round small = rounds.get(0);
    Round large = rounds.get(1);
    Round hot = rounds.get(2);
    double slope = (large.usedPerKey() - small.usedPerKey()) / (LARGE - SMALL);
    double overhead = small.usedPerKey() - SMALL * slope;
    double hotExtra =
        (hot.structure("popularity").bytes() + hot.structure("hot set").bytes()) / (double) hot.n();
    section.paragraph(
        "Redis "
            + server.get("redisVersion")
            + " (embedded, allocator "
            + server.get("memAllocator")
            + ", `maxmemory-policy` "
            + server.get("maxmemoryPolicy")
            + ", `"
            + server.get("zsetMaxCompactEntriesSetting")
            + "` "
            + server.get("zsetMaxCompactEntries")
            + ", `"
            + server.get("hashMaxCompactEntriesSetting")
            + "` "
            + server.get("hashMaxCompactEntries")
            + "). Each round: N = "
            + Fmt.number(n)
            + " keys `item:1`…`item:"
            + n
            + "` (5–11 characters) registered with SQL and due at once, the service (in this JVM, fresh PostgreSQL"
            + " database, Redis database "
            + REDIS_DB
            + " emptied) refreshing each once; their source returns exactly the stated value size (checked with the"
            + " metadata's `size`). TTL "
            + TTL_HOURS
            + " h, so nothing is due again while it is measured. *used_memory* is INFO memory's after every value is"
            + " written minus before the registration (service started), over N: it includes what MEMORY USAGE does not"
            + " count (the bucket arrays of the keyspace's hash tables, the expiry table's entries, the scripts the"
            + " service loaded, the allocator's own overhead) and is the figure to plan with. The other rows are `MEMORY USAGE <key> SAMPLES 0` of every"
            + " key of the database by structure (value, metadata and token counter: a sample of "
            + Fmt.number(SAMPLE)
            + " each, times their count), after minus before, over N; *fixed* structures were there before the"
            + " registration and did not grow. The hot round's keys have policy `hot` and were each read "
            + HOT_READS
            + " times through the client library (sampler every 500 ms, threshold 0.01 reads/s) until all N were in"
            + " the hot set. "
            + LoadAverage.sentence(load));

    List<String> header = new ArrayList<>(List.of("structure", "Redis key"));
    for (Round round : rounds) {
      header.add(round.valueBytes() + " B, `" + round.policy() + "` (N=" + Fmt.number(round.n()) + ")");
    }
    List<List<String>> rows = new ArrayList<>();
    for (Kind kind : KINDS) {
      if (rounds.stream().allMatch(r -> r.structure(kind.name()).keys() == 0) && !kind.name().equals("lock hash")) {
        continue;
      }
      List<String> row = new ArrayList<>(List.of(kind.name(), kind.redisKey()));
      for (Round round : rounds) {
        Structure s = round.structure(kind.name());
        if (kind.name().equals("lock hash")) {
          row.add(round.lockHashBytes() == 0 ? "—" : round.lockHashBytes() + " B per refresh running (0 kept)");
        } else if (s.keys() == 0) {
          row.add("—");
        } else if (kind.perKey()) {
          row.add(bytes(s.perKey()) + " (" + Fmt.number(s.keys()) + " keys)");
        } else if (s.fixed()) {
          row.add("fixed: " + Fmt.number(s.bytes()) + " B in " + Fmt.number(s.keys()) + " keys, there before");
        } else {
          row.add(bytes(s.perKey()) + " (" + Fmt.number(s.bytes()) + " B in " + Fmt.number(s.keys()) + " keys, ÷ N)");
        }
      }
      rows.add(row);
    }
    List<String> sum = new ArrayList<>(List.of("**sum of MEMORY USAGE ÷ N**", ""));
    List<String> used = new ArrayList<>(List.of("**used_memory after − before ÷ N**", "INFO memory"));
    List<String> dataset = new ArrayList<>(List.of("used_memory_dataset after − before ÷ N", "INFO memory"));
    for (Round round : rounds) {
      sum.add("**" + bytes(round.structureBytes() / (double) round.n()) + "**");
      used.add(
          "**" + bytes(round.usedPerKey()) + "** (" + mib(round.usedBefore()) + " → " + mib(round.usedAfter()) + ")");
      dataset.add(bytes(round.datasetPerKey()));
    }
    rows.add(sum);
    rows.add(used);
    rows.add(dataset);
    section.table("Bytes per key, by structure (N beside each round)", header, rows);

    section.paragraph(
        "**Formula** (used_memory, N="
            + Fmt.number(n)
            + "): **bytes per kept key ≈ "
            + Math.round(overhead)
            + " + "
            + String.format(Locale.ROOT, "%.2f", slope)
            + " × value bytes** (the slope is above 1 because a value is rounded up to one of the allocator's size"
            + " classes, at most 25 % apart: 1,024 bytes take a 1,280-byte block; so it overestimates other sizes a"
            + " little); a key in the hot set adds "
            + Math.round(hotExtra)
            + " B (popularity + hot set); reads add "
            + Math.round(buckets.perField())
            + " B per distinct key read in a second, for the seconds the buckets wait to be consumed (about"
            + " `access.settle` + `access.sampleInterval` + 1 s: 8 s with the defaults; at most 60 s when no sampler"
            + " runs).");

    Map<String, Long> t = small.tombstones();
    if (!t.isEmpty()) {
      section.table(
          "What a deleted key leaves (" + SMALL + " B values, N=" + Fmt.number(small.n()) + "), MEMORY USAGE per key",
          List.of("deletion", "keys", "value", "metadata hash", "token counter", "for how long"),
          List.of(
              List.of(
                  "`DELETE /v1/keys/{key}?evict=true`",
                  Fmt.number(t.get("evictedKeys")),
                  bytesOrGone(t.get("evictedValueBytes")),
                  bytesOrGone(t.get("evictedMetadataBytes")) + " (tombstone: `generation`, `retired`)",
                  bytesOrGone(t.get("evictedTokenCounterBytes")),
                  "the tombstone `refresh.deletedTombstone` (10 min by default)"),
              List.of(
                  "`DELETE /v1/keys/{key}`",
                  Fmt.number(t.get("deletedKeys")),
                  bytesOrGone(t.get("deletedValueBytes")),
                  bytesOrGone(t.get("deletedMetadataBytes")) + " (`retired` 1)",
                  bytesOrGone(t.get("deletedTokenCounterBytes")),
                  "until the value's own expiry (TTL + stale grace)")));
    }

    section.table(
        "Access counter buckets (client library, one read of each of N keys, not consumed; database " + BUCKET_DB + ")",
        List.of("N (distinct keys read)", "buckets", "fields", "MEMORY USAGE", "per field", "used_memory delta per field"),
        List.of(
            List.of(
                Fmt.number(buckets.keys()),
                Fmt.number(buckets.buckets()),
                Fmt.number(buckets.fields()),
                Fmt.number(buckets.bytes()) + " B",
                "**" + bytes(buckets.perField()) + "**",
                bytes(buckets.usedPerField()))));

    section.paragraph(
        "Per-key cost depends on N: a sorted set (the due index's "
            + hot.structure("due index").keys()
            + " shards, popularity, the hot set) or a hash (a bucket has one of 16 shards' share of a second's keys) of"
            + " up to `"
            + server.get("zsetMaxCompactEntriesSetting")
            + "` / `"
            + server.get("hashMaxCompactEntriesSetting")
            + "` ("
            + server.get("zsetMaxCompactEntries")
            + " / "
            + server.get("hashMaxCompactEntries")
            + ") entries is a compact "
            + server.get("compactEncoding")
            + " (Redis 7: listpack, Redis 6: ziplist), above that a skiplist plus hash table (or a hash table), several times"
            + " larger per entry; and the keyspace's hash tables double in size as it grows, so used_memory per key steps with N. So the figures"
            + " of a --tiny run (N=500) are not those of N=100,000: plan with a run near the production size. Key names"
            + " here are 5–11 characters; each kept key's name is stored in its value key, its metadata key and token"
            + " counter key (with their prefixes) and the due index, and a hot key's also in popularity and the hot"
            + " set, so longer names cost a few bytes per character more in each.");

    section.put("loadAverageAtStart", load).put("redis", server).put("n", n);
    List<Map<String, Object>> json = new ArrayList<>();
    for (Round round : rounds) {
      Map<String, Object> entry = new LinkedHashMap<>();
      entry.put("policy", round.policy());
      entry.put("valueBytes", round.valueBytes());
      entry.put("n", round.n());
      entry.put("usedMemoryBefore", round.usedBefore());
      entry.put("usedMemoryAfter", round.usedAfter());
      entry.put("usedMemoryPerKey", round.usedPerKey());
      entry.put("usedMemoryDatasetPerKey", round.datasetPerKey());
      entry.put("memoryUsagePerKey", round.structureBytes() / (double) round.n());
      entry.put("structures", round.structures());
      entry.put("tombstones", round.tombstones());
      entry.put("lockHashBytes", round.lockHashBytes());
      entry.put("seconds", round.seconds());
      json.add(entry);
    }
    Map<String, Object> formula = new LinkedHashMap<>();
    formula.put("overheadBytesPerKey", overhead);
    formula.put("bytesPerValueByte", slope);
    formula.put("hotKeyBytes", hotExtra);
    formula.put("accessBucketBytesPerKeySecond", buckets.perField());
    section.put("rounds", json).put("formula", formula).put("accessBuckets", buckets);
  }

  private static String bytes(double value) {
    return String.format(Locale.ROOT, "%,.0f B", value);
  }

  private static String bytesOrGone(Long value) {
    return value == null || value == 0 ? "gone" : value + " B";
  }

  private static String mib(long bytes) {
    return String.format(Locale.ROOT, "%.1f MiB", bytes / (1024.0 * 1024));
  }
}
