package io.refresher.bench;

import io.refresher.bench.report.BenchReport;
import io.refresher.bench.report.Fmt;
import java.lang.management.ManagementFactory;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;

/**
 * The service's scale: registration throughput through the admin API and start-up time at growing
 * registry sizes, heap per registered key, and the admin API's latency at {@value #ADMIN_RATE} requests/s while
 * refreshes run at 80 % of the service's maximum.
 *
 * <p>The registry grows level by level (full: 10k, 100k, 1M keys; quick: 10k, 100k; tiny: 1k). At
 * each level up to {@link #apiBatch} keys are registered through {@code PUT /v1/keys/{key}} by
 * {@value #CLIENTS} concurrent clients (each registration also computes the key's value, one
 * refresh), the rest of the level is written into the registry with SQL first (and into the due
 * index with a far due time, as an API registration leaves it); then the service is stopped and
 * started again, timed until it answers ready, and its used heap after full GCs is read.
 *
 * <p>The service runs in this JVM on the run's PostgreSQL (a database of its own) and on the run's
 * Redis, database {@value #REDIS_DB} (emptied before and after), so that nothing of the other
 * phases' keys is in its way.
 */
final class ScalePhase implements Phase {

  static final int REDIS_DB = 1;
  static final int CLIENTS = 16;
  /** Issue 23, point 6: the admin API's reads answer within 50 ms at p99 at this rate while refreshes run. */
  static final int ADMIN_RATE = 200;
  static final double ADMIN_P99_TARGET_MS = 50;
  /** Admin requests sent and not answered yet, at most. */
  static final int MAX_OUTSTANDING = 256;
  /** The share of the admin mix that are registrations (replacing a registered key). */
  static final double MIX_PUTS = 0.1;
  static final String GET_KEY = "GET /v1/keys/{key}";
  static final String GET_HOT = "GET /v1/hot";
  /** Keys registered for the levels: never due during the run (next refresh after TTL - TTR). */
  static final Duration FAR_TTL = Duration.ofHours(720);
  static final Duration TTR = Duration.ofSeconds(5);
  /** The steady refresh load's keys: refreshed every {@code STEADY_TTL - TTR}. */
  static final Duration STEADY_TTL = Duration.ofSeconds(10);
  static final String STEADY_PREFIX = "steady:item:";

  @Override
  public String id() {
    return "scale";
  }

  @Override
  public void run(BenchContext context, BenchReport report) throws Exception {
    String load = LoadAverage.now();
    List<Integer> levels =
        context.tiny() ? List.of(500) : context.quick() ? List.of(10_000, 100_000) : List.of(10_000, 100_000, 1_000_000);
    int apiBatch = context.pick(100_000, 10_000, 500);
    Duration adminFor = Duration.ofMillis(context.pick(30_000, 10_000, 1_000));
    Duration adminWarmUp = Duration.ofMillis(context.pick(5_000, 2_000, 250));

    OptionalDouble serviceMax = report.shared(BenchReport.SERVICE_MAX_REFRESHES);
    double fallbackRate = context.pick(2_000, 1_000, 100);
    double refreshRate = serviceMax.isPresent() ? 0.8 * serviceMax.getAsDouble() : fallbackRate;
    Duration every = STEADY_TTL.minus(TTR);
    int steadyKeys = (int) Math.max(1, Math.min(500_000, Math.round(refreshRate * every.toMillis() / 1000.0)));

    String db = context.newDatabase("bench_scale");
    BenchItems.create(db, Math.max(levels.get(levels.size() - 1), steadyKeys));
    String redisUrl = context.redis().url() + "/" + REDIS_DB;
    flushDb(redisUrl);
    BenchConfig config = BenchConfig.of(redisUrl, db, TTR);

    List<Level> results = new ArrayList<>();
    List<AdminRun> admin = new ArrayList<>();
    double steadyMeasured;
    BenchService service = BenchService.start(config, Duration.ofMinutes(2));
    try {
      Duration firstStart = service.startUp();
      service.close();
      service = BenchService.start(config, Duration.ofMinutes(2));
      results.add(
          new Level(
              0,
              "empty registry (the first start, migrating the schema, took " + Fmt.millis(firstStart.toMillis()) + ")",
              null,
              service.startUp(),
              usedHeapAfterGc()));
      long registered = 0;
      for (int level : levels) {
        long api = Math.min(level - registered, apiBatch);
        long bulk = level - registered - api;
        String how;
        if (bulk > 0) {
          long started = System.nanoTime();
          BenchItems.register(db, registered + 1, bulk, FAR_TTL, "always", Duration.ZERO);
          scheduleFar(service, registered + 1, bulk);
          System.out.printf(
              "scale: %,d keys registered with SQL in %.1f s%n", bulk, (System.nanoTime() - started) / 1e9);
          registered += bulk;
          how = Fmt.number(bulk) + " with SQL, then " + Fmt.number(api) + " through the API";
        } else {
          how = Fmt.number(api) + " through the API";
        }
        Registered viaApi = registerViaApi(service, registered + 1, api);
        registered += api;
        System.out.printf(
            "scale: %,d registrations through the API: %s/s, p99 %s%n",
            api, Fmt.rate(viaApi.perSecond()), Fmt.millisOfNanos(viaApi.p99Nanos()));
        long inRegistry = BenchItems.registered(db);
        if (inRegistry != registered) {
          throw new IllegalStateException(inRegistry + " registrations in the registry, expected " + registered);
        }
        service.close();
        service = BenchService.start(config, Duration.ofMinutes(5));
        long heap = usedHeapAfterGc();
        System.out.printf(
            "scale: %,d registered: start-up %s, heap after GC %.1f MB%n",
            registered, Fmt.millis(service.startUp().toMillis()), heap / 1e6);
        results.add(new Level(level, how, viaApi, service.startUp(), heap));
      }

      // The steady refresh load: keys due evenly over one refresh interval, each refreshed every TTL - TTR.
      BenchItems.register(db, STEADY_PREFIX, 1, steadyKeys, STEADY_TTL, "always", Duration.ZERO);
      scheduleSpread(service, steadyKeys, every); // steady from the start: first due times spread over an interval
      long maxId = registered;
      admin.add(closedLoop(service, maxId, adminWarmUp, adminFor));
      BenchService running = service;
      admin.add(openLoop(service, GET_KEY, id -> get(running, id), maxId, adminWarmUp, adminFor));
      admin.add(openLoop(service, GET_HOT, id -> hot(running), maxId, adminWarmUp, adminFor));
      admin.add(
          openLoop(
              service,
              "mix: " + Math.round(100 * (1 - MIX_PUTS)) + " % GET, " + Math.round(100 * MIX_PUTS) + " % PUT (replace)",
              id -> ThreadLocalRandom.current().nextDouble() < MIX_PUTS ? register(running, id) : get(running, id),
              maxId,
              adminWarmUp,
              adminFor));
      steadyMeasured = admin.stream().skip(1).mapToDouble(AdminRun::refreshesPerSecond).average().orElse(0);
    } finally {
      service.close();
      flushDb(redisUrl);
    }

    write(report, levels, apiBatch, results, admin, serviceMax, refreshRate, steadyKeys, every, steadyMeasured, load);
  }

  private void write(
      BenchReport report,
      List<Integer> levels,
      int apiBatch,
      List<Level> results,
      List<AdminRun> admin,
      OptionalDouble serviceMax,
      double refreshRate,
      int steadyKeys,
      Duration every,
      double steadyMeasured,
      String load) {
    var section = report.section(id(), "Scale: registrations, start-up, heap, admin API under load");
    long heap0 = results.get(0).heapBytes();
    StringBuilder sizes = new StringBuilder("Registry sizes: ");
    for (int i = 0; i < levels.size(); i++) {
      sizes.append(i == 0 ? "" : ", ").append(Fmt.number(levels.get(i)));
    }
    if (levels.size() < 3) {
      sizes.append(levels.size() == 2 ? " (1,000,000 only in the full run)" : " (tiny run; 10k and 100k in the quick run, and 1M in the full one)");
    }
    section.paragraph(
        sizes
            + ". At each size up to "
            + Fmt.number(apiBatch)
            + " keys are registered through the admin API (`PUT /v1/keys/{key}`, "
            + CLIENTS
            + " concurrent clients, JDK HttpClient; each registration also computes the key's value, so it is a"
            + " refresh too), the rest of the size first with SQL straight into the registry (and the due index, far"
            + " due, as a registration leaves it). Keys: policy `always`, TTL "
            + FAR_TTL.toHours()
            + " h (never due during the run). Then the service is stopped and started again: start-up is from"
            + " `RefresherApplication.run(\"server\", ...)` to the first 200 of the admin port's `/healthcheck` (Redis, PostgreSQL, scheduler); heap is"
            + " this JVM's used heap after three `System.gc()`s with the service ready (the other phases' servers and"
            + " clients are gone by then), and per key it is the growth over the empty registry (also restarted), so"
            + " at small sizes it is mostly noise. "
            + LoadAverage.sentence(load));
    List<List<String>> rows = new ArrayList<>();
    List<Map<String, Object>> json = new ArrayList<>();
    for (Level level : results) {
      Registered r = level.registered();
      double perKey = level.keys() == 0 ? 0 : (level.heapBytes() - heap0) / (double) level.keys();
      rows.add(
          List.of(
              Fmt.number(level.keys()),
              level.how(),
              r == null ? "" : Fmt.rate(r.perSecond()),
              r == null ? "" : report.ofCeiling(r.perSecond()),
              r == null ? "" : Fmt.millisOfNanos(r.p50Nanos()) + " / " + Fmt.millisOfNanos(r.p99Nanos()),
              Fmt.millis(level.startUp().toMillis()),
              String.format(java.util.Locale.ROOT, "%.1f MB", level.heapBytes() / 1e6),
              level.keys() == 0 ? "" : String.format(java.util.Locale.ROOT, "%.0f B", perKey)));
      Map<String, Object> entry = new LinkedHashMap<>();
      entry.put("registeredKeys", level.keys());
      entry.put("how", level.how());
      if (r != null) {
        entry.put("apiRegistrations", r.count());
        entry.put("registrationsPerSecond", r.perSecond());
        entry.put("registrationP50Ms", r.p50Nanos() / 1e6);
        entry.put("registrationP99Ms", r.p99Nanos() / 1e6);
      }
      entry.put("startUpMs", level.startUp().toMillis());
      entry.put("heapUsedAfterGcBytes", level.heapBytes());
      entry.put("heapPerKeyBytes", perKey);
      json.add(entry);
    }
    section.table(
        "Registrations, start-up and heap by registered keys",
        List.of(
            "registered keys",
            "how they got there",
            "API registrations/s",
            "of ceiling",
            "API p50 / p99",
            "start-up to ready",
            "heap used after GC",
            "heap per key"),
        rows);
    section.put("loadAverageAtStart", load).put("levels", json);

    String loadSource =
        serviceMax.isPresent()
            ? "80 % of the service's maximum (" + Fmt.rate(serviceMax.getAsDouble()) + " refreshes/s, throughput phase)"
            : "a fixed rate (the throughput phase did not run in this run, so the service's maximum is unknown)";
    section.paragraph(
        "Admin API latency, open loop: requests sent at fixed intervals ("
            + Fmt.number(ADMIN_RATE)
            + "/s) whatever the answers, latency from each request's intended send time (so a stall counts for every"
            + " request it delays; at most " + MAX_OUTSTANDING + " outstanding, past that the sender waits and the wait"
            + " counts), HdrHistogram; "
            + adminFor(admin)
            + ". Keys drawn uniformly from the registry. Meanwhile refreshes run at "
            + Fmt.rate(refreshRate)
            + "/s, "
            + loadSource
            + ": "
            + Fmt.number(steadyKeys)
            + " keys of TTL "
            + STEADY_TTL.toSeconds()
            + " s with a fixed TTR of "
            + TTR.toSeconds()
            + " s are refreshed every "
            + every.toSeconds()
            + " s, their first due times spread over one interval. Measured during the open-loop runs: "
            + Fmt.rate(steadyMeasured)
            + " refreshes/s ("
            + report.ofCeiling(steadyMeasured)
            + " of the ceiling)."
            + admin.stream()
                .filter(run -> run.name().contains("closed"))
                .findFirst()
                .map(
                    run ->
                        " Closed loop, the API answered "
                            + Fmt.rate(run.sentPerSecond())
                            + " GETs/s under the same load: "
                            + Fmt.number(ADMIN_RATE)
                            + "/s is "
                            + Fmt.ratio(ADMIN_RATE / Math.max(1, run.sentPerSecond()))
                            + " of that"
                            + (run.sentPerSecond() < ADMIN_RATE ? ", so the open-loop queues grow for as long as it runs." : "."))
                .orElse(""));
    List<List<String>> adminRows = new ArrayList<>();
    for (AdminRun run : admin) {
      adminRows.add(
          List.of(
              run.name(),
              Fmt.rate(run.sentPerSecond()),
              Fmt.millisOfNanos(run.latency().getValueAtPercentile(50)),
              Fmt.millisOfNanos(run.latency().getValueAtPercentile(90)),
              "**" + Fmt.millisOfNanos(run.latency().getValueAtPercentile(99)) + "**",
              Fmt.millisOfNanos(run.latency().getValueAtPercentile(99.9)),
              Fmt.millisOfNanos(run.latency().getMaxValue()),
              Fmt.number(run.errors()),
              Fmt.rate(run.refreshesPerSecond()) + " (" + Fmt.number(run.refreshFailures()) + ")",
              run.gc() == null
                  ? ""
                  : Fmt.number(run.gc().pauses()) + ", " + Fmt.millis(run.gc().totalMillis()) + " in all, longest "
                      + Fmt.millis(run.gc().longestMillis())));
    }
    section.table(
        "Admin API at " + Fmt.number(ADMIN_RATE) + " requests/s while refreshes run",
        List.of("requests", "sent/s", "p50", "p90", "p99", "p99.9", "max", "errors", "refreshes/s meanwhile (failed)",
            "GC pauses of this JVM while measured"),
        adminRows);
    List<List<String>> targets = new ArrayList<>();
    for (AdminRun run : admin) {
      if (run.name().equals(GET_KEY) || run.name().equals(GET_HOT)) {
        double p99 = run.latency().getValueAtPercentile(99) / 1e6;
        // met only under the load the target names: refreshes at (nearly) the rate asked for
        boolean loaded = run.refreshesPerSecond() >= 0.9 * refreshRate;
        boolean met = p99 <= ADMIN_P99_TARGET_MS && run.errors() == 0 && run.sentPerSecond() >= 0.97 * ADMIN_RATE && loaded;
        targets.add(
            List.of(
                "`" + run.name() + "` p99 ≤ " + Fmt.number(ADMIN_P99_TARGET_MS) + " ms at " + Fmt.number(ADMIN_RATE)
                    + "/s, refreshes at 80 % of max",
                Fmt.millis(p99) + " at " + Fmt.rate(run.sentPerSecond()) + "/s, refreshes " + Fmt.rate(run.refreshesPerSecond())
                    + "/s of " + Fmt.rate(refreshRate) + "/s asked (" + Fmt.number(run.refreshFailures()) + " failed)"
                    + (loaded ? "" : ": the refresh load fell short of the target's"),
                Fmt.met(met && serviceMax.isPresent())));
      }
    }
    section.table("Targets (issue 23, point 6)", List.of("target", "measured", "met"), targets);
    List<Map<String, Object>> adminJson = new ArrayList<>();
    for (AdminRun run : admin) {
      Map<String, Object> entry = new LinkedHashMap<>();
      entry.put("requests", run.name());
      entry.put("offeredPerSecond", ADMIN_RATE);
      entry.put("sentPerSecond", run.sentPerSecond());
      entry.put("answered", run.latency().getTotalCount());
      entry.put("errors", run.errors());
      entry.put("p50Ms", run.latency().getValueAtPercentile(50) / 1e6);
      entry.put("p90Ms", run.latency().getValueAtPercentile(90) / 1e6);
      entry.put("p99Ms", run.latency().getValueAtPercentile(99) / 1e6);
      entry.put("p999Ms", run.latency().getValueAtPercentile(99.9) / 1e6);
      entry.put("maxMs", run.latency().getMaxValue() / 1e6);
      entry.put("refreshesPerSecond", run.refreshesPerSecond());
      entry.put("refreshFailures", run.refreshFailures());
      entry.put("gcPauses", run.gc());
      adminJson.add(entry);
    }
    section
        .put("admin", adminJson)
        .put("refreshLoadTarget", refreshRate)
        .put("refreshLoadFromServiceMax", serviceMax.isPresent())
        .put("refreshLoadMeasured", steadyMeasured)
        .put("steadyKeys", steadyKeys);

    CategoryChart startUp =
        new CategoryChartBuilder()
            .width(700)
            .height(350)
            .title("Start-up to ready by registered keys")
            .xAxisTitle("registered keys")
            .yAxisTitle("ms")
            .build();
    startUp.getStyler().setLegendVisible(false);
    startUp.addSeries(
        "start-up",
        results.stream().map(l -> Fmt.number(l.keys())).toList(),
        results.stream().map(l -> (Number) l.startUp().toMillis()).toList());
    section.chart("scale-startup", "start-up by registered keys", startUp);
    CategoryChart latency =
        new CategoryChartBuilder()
            .width(700)
            .height(350)
            .title("Admin API latency at " + Fmt.number(ADMIN_RATE) + " requests/s")
            .xAxisTitle("percentile")
            .yAxisTitle("ms")
            .build();
    List<String> percentiles = List.of("p50", "p90", "p99", "p99.9", "max");
    for (AdminRun run : admin) {
      Histogram h = run.latency();
      latency.addSeries(
          run.name().startsWith("mix") ? "mix" : run.name().contains("closed") ? "GET closed loop" : run.name(),
          percentiles,
          List.of(
              h.getValueAtPercentile(50) / 1e6,
              h.getValueAtPercentile(90) / 1e6,
              h.getValueAtPercentile(99) / 1e6,
              h.getValueAtPercentile(99.9) / 1e6,
              h.getMaxValue() / 1e6));
    }
    section.chart("scale-admin-latency", "admin API latency", latency);
  }

  private static String adminFor(List<AdminRun> admin) {
    return admin.isEmpty()
        ? ""
        : "each run " + Fmt.number(admin.get(0).warmUpSeconds()) + " s of warm-up, then " + Fmt.number(admin.get(0).seconds()) + " s measured";
  }

  /** One registry size: how it was reached, the API registrations, start-up and heap there. */
  record Level(long keys, String how, Registered registered, Duration startUp, long heapBytes) {}

  record Registered(long count, double seconds, long p50Nanos, long p99Nanos) {
    double perSecond() {
      return count / seconds;
    }
  }

  record AdminRun(
      String name,
      double seconds,
      double warmUpSeconds,
      double sentPerSecond,
      Histogram latency,
      long errors,
      double refreshesPerSecond,
      long refreshFailures,
      GcPauses.Seen gc) {}

  /** Registers {@code item:<from>..} through the admin API, {@value #CLIENTS} requests at a time. */
  private static Registered registerViaApi(BenchService service, long from, long count) throws Exception {
    if (count <= 0) {
      return new Registered(0, 1, 0, 0);
    }
    HttpClient http = http();
    Histogram latency = new ConcurrentHistogram(3);
    AtomicLong next = new AtomicLong(from);
    AtomicReference<String> failure = new AtomicReference<>();
    long end = from + count;
    List<Thread> clients = new ArrayList<>();
    long started = System.nanoTime();
    for (int c = 0; c < CLIENTS; c++) {
      Thread client =
          new Thread(
              () -> {
                long id;
                while ((id = next.getAndIncrement()) < end && failure.get() == null) {
                  try {
                    long sent = System.nanoTime();
                    HttpResponse<String> response = http.send(register(service, id), HttpResponse.BodyHandlers.ofString());
                    latency.recordValue(System.nanoTime() - sent);
                    if (response.statusCode() != 201 && response.statusCode() != 200) {
                      failure.compareAndSet(null, "PUT item:" + id + " answered " + response.statusCode() + " " + response.body());
                    }
                  } catch (Exception e) {
                    failure.compareAndSet(null, "PUT item:" + id + " failed: " + e);
                  }
                }
              },
              "scale-register-" + c);
      client.start();
      clients.add(client);
    }
    for (Thread client : clients) {
      client.join();
    }
    double seconds = (System.nanoTime() - started) / 1e9;
    if (failure.get() != null) {
      throw new IllegalStateException(failure.get());
    }
    return new Registered(count, seconds, latency.getValueAtPercentile(50), latency.getValueAtPercentile(99));
  }

  /**
   * The admin API's capacity for GETs on this machine, under the same refresh load: {@value
   * #CLIENTS} clients, each sending its next request as soon as the last is answered.
   */
  private static AdminRun closedLoop(BenchService service, long maxId, Duration warmUp, Duration measured)
      throws Exception {
    HttpClient http = http();
    Histogram latency = new ConcurrentHistogram(3);
    LongAdder errors = new LongAdder();
    long measureFrom = System.nanoTime() + warmUp.toNanos();
    long end = measureFrom + measured.toNanos();
    List<Thread> clients = new ArrayList<>();
    for (int c = 0; c < CLIENTS; c++) {
      Thread client =
          new Thread(
              () -> {
                ThreadLocalRandom random = ThreadLocalRandom.current();
                long now;
                while ((now = System.nanoTime()) < end) {
                  try {
                    HttpResponse<Void> response =
                        http.send(get(service, 1 + random.nextLong(maxId)), HttpResponse.BodyHandlers.discarding());
                    if (now >= measureFrom) {
                      latency.recordValue(System.nanoTime() - now);
                      if (response.statusCode() >= 300) {
                        errors.increment();
                      }
                    }
                  } catch (Exception e) {
                    if (now >= measureFrom) {
                      errors.increment();
                    }
                  }
                }
              },
              "scale-admin-closed-" + c);
      client.setDaemon(true);
      client.start();
      clients.add(client);
    }
    LockSupport.parkNanos(measureFrom - System.nanoTime());
    long refreshedBefore = service.refreshed();
    long failedBefore = service.failed();
    long from = System.nanoTime();
    for (Thread client : clients) {
      client.join();
    }
    double seconds = (System.nanoTime() - from) / 1e9;
    double refreshes = (service.refreshed() - refreshedBefore) / seconds;
    System.out.printf(
        "scale: GET closed loop, %d clients: %s/s, p50 %s p99 %s%n",
        CLIENTS,
        Fmt.rate(latency.getTotalCount() / seconds),
        Fmt.millisOfNanos(latency.getValueAtPercentile(50)),
        Fmt.millisOfNanos(latency.getValueAtPercentile(99)));
    return new AdminRun(
        "GET, closed loop (" + CLIENTS + " clients, each waiting for its answer): the capacity",
        measured.toNanos() / 1e9,
        warmUp.toNanos() / 1e9,
        latency.getTotalCount() / seconds,
        latency,
        errors.sum(),
        refreshes,
        service.failed() - failedBefore,
        null);
  }

  private static HttpRequest register(BenchService service, long id) {
    return HttpRequest.newBuilder(service.uri("/v1/keys/" + BenchItems.key(id)))
        .header("Authorization", "Bearer " + BenchConfig.ADMIN_TOKEN)
        .header("Content-Type", "application/json")
        .timeout(Duration.ofSeconds(30))
        .PUT(
            HttpRequest.BodyPublishers.ofString(
                "{\"source\":\"item\",\"params\":{\"id\":" + id + "},\"ttl\":\"PT" + FAR_TTL.toHours() + "H\",\"policy\":\"always\"}"))
        .build();
  }

  /** The hottest keys (the console's and the CLI's question). */
  private static HttpRequest hot(BenchService service) {
    return HttpRequest.newBuilder(service.uri("/v1/hot?limit=20"))
        .header("Authorization", "Bearer " + BenchConfig.ADMIN_TOKEN)
        .timeout(Duration.ofSeconds(30))
        .GET()
        .build();
  }

  private static HttpRequest get(BenchService service, long id) {
    return HttpRequest.newBuilder(service.uri("/v1/keys/" + BenchItems.key(id)))
        .header("Authorization", "Bearer " + BenchConfig.ADMIN_TOKEN)
        .timeout(Duration.ofSeconds(30))
        .GET()
        .build();
  }

  /**
   * Sends requests at fixed intervals, whatever the answers; each one's latency counts from when it
   * should have been sent. At most {@value #MAX_OUTSTANDING} are outstanding (each holds a
   * connection): past that the sender waits, and the wait counts in the latency of the requests it
   * delays.
   */
  private static AdminRun openLoop(
      BenchService service,
      String name,
      java.util.function.LongFunction<HttpRequest> requests,
      long maxId,
      Duration warmUp,
      Duration measured)
      throws Exception {
    ExecutorService callbacks = Executors.newFixedThreadPool(2, runnable -> {
      Thread thread = new Thread(runnable, "scale-admin-http");
      thread.setDaemon(true);
      return thread;
    });
    HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).executor(callbacks)
        .connectTimeout(Duration.ofSeconds(5)).build();
    Histogram latency = new ConcurrentHistogram(3);
    LongAdder errors = new LongAdder();
    Semaphore outstanding = new Semaphore(MAX_OUTSTANDING);
    long interval = 1_000_000_000L / ADMIN_RATE;
    long start = System.nanoTime() + 10_000_000L;
    long measureFrom = start + warmUp.toNanos();
    long end = measureFrom + measured.toNanos();
    long refreshedBefore = -1;
    long failedBefore = 0;
    long measuringSince = 0;
    long sent = 0;
    GcPauses gc = null;
    ThreadLocalRandom random = ThreadLocalRandom.current();
    for (long i = 0; ; i++) {
      long intended = start + i * interval;
      if (intended >= end) {
        break;
      }
      if (refreshedBefore < 0 && intended >= measureFrom) {
        refreshedBefore = service.refreshed();
        failedBefore = service.failed();
        measuringSince = System.nanoTime(); // later than measureFrom when the sender fell behind
        gc = GcPauses.start();
      }
      long wait = intended - System.nanoTime();
      if (wait > 0) {
        LockSupport.parkNanos(wait);
      }
      long id = 1 + random.nextLong(maxId);
      HttpRequest request = requests.apply(id);
      boolean counted = intended >= measureFrom;
      outstanding.acquire();
      if (counted) {
        sent++;
      }
      http.sendAsync(request, HttpResponse.BodyHandlers.discarding())
          .whenComplete(
              (response, error) -> {
                outstanding.release();
                if (!counted) {
                  return;
                }
                latency.recordValue(Math.max(0, System.nanoTime() - intended));
                if (error != null || response.statusCode() >= 300) {
                  errors.increment();
                }
              });
    }
    long refreshed = service.refreshed() - refreshedBefore;
    long failed = service.failed() - failedBefore;
    // Real time from the first to the last measured send: longer than planned when the sender had to wait.
    double seconds = (System.nanoTime() - measuringSince) / 1e9;
    if (!outstanding.tryAcquire(MAX_OUTSTANDING, 60, TimeUnit.SECONDS)) {
      throw new IllegalStateException("admin API requests still unanswered after 60 s");
    }
    callbacks.shutdown();
    GcPauses.Seen pauses = gc == null ? new GcPauses.Seen(0, 0, 0) : gc.seen();
    if (gc != null) {
      gc.close();
    }
    System.out.printf(
        "scale: %s at %d/s: GC pauses %d, %d ms in all, longest %d ms%n", name, ADMIN_RATE, pauses.pauses(), pauses.totalMillis(), pauses.longestMillis());
    System.out.printf(
        "scale: %s at %d/s: p50 %s p99 %s max %s, %d errors; %s refreshes/s meanwhile%n",
        name,
        ADMIN_RATE,
        Fmt.millisOfNanos(latency.getValueAtPercentile(50)),
        Fmt.millisOfNanos(latency.getValueAtPercentile(99)),
        Fmt.millisOfNanos(latency.getMaxValue()),
        errors.sum(),
        Fmt.rate(refreshed / seconds));
    return new AdminRun(
        name, measured.toNanos() / 1e9, warmUp.toNanos() / 1e9, sent / seconds, latency, errors.sum(), refreshed / seconds, failed, pauses);
  }

  /** Puts keys {@code item:<from>..} in the due index, due in a year: registered, not due during the run. */
  private static void scheduleFar(BenchService service, long from, long count) {
    long far = System.currentTimeMillis() + Duration.ofDays(365).toMillis();
    List<String> page = new ArrayList<>();
    for (long id = from; id < from + count; id++) {
      page.add(BenchItems.key(id));
      if (page.size() == 10_000) {
        service.parts().dueIndex().addMissing(page, far);
        page.clear();
      }
    }
    if (!page.isEmpty()) {
      service.parts().dueIndex().addMissing(page, far);
    }
  }

  /** Puts the steady keys in the due index, their due times spread evenly over one interval. */
  private static void scheduleSpread(BenchService service, int keys, Duration every) {
    long now = System.currentTimeMillis() + 200;
    int page = 50;
    for (int from = 1; from <= keys; from += page) {
      List<String> names = new ArrayList<>();
      for (int id = from; id < from + page && id <= keys; id++) {
        names.add(STEADY_PREFIX + id);
      }
      long dueAt = now + (long) ((from - 1) / (double) keys * every.toMillis());
      service.parts().dueIndex().addMissing(names, dueAt);
    }
  }

  private static HttpClient http() {
    return HttpClient.newBuilder()
        .version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(Duration.ofSeconds(5))
        .build();
  }

  /** Empties the phase's Redis database. */
  private static void flushDb(String redisUrl) {
    RedisDatabases.flush(redisUrl);
  }

  static long usedHeapAfterGc() throws InterruptedException {
    for (int i = 0; i < 3; i++) {
      System.gc();
      TimeUnit.MILLISECONDS.sleep(200);
    }
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
  }
}
