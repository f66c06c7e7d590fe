package io.refresher.bench.stampede;

import io.refresher.bench.BenchContext;
import java.time.Duration;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * One run: every strategy at once, each on its own keys and application, against one database
 * (a fresh one) and the run's Redis, with the real service for (f).
 *
 * <ol>
 *   <li>The service starts (its Redis commands counted on its own connections) with a template for (f)'s keys.
 *   <li>(a) and (f) are warmed; (f)'s readers start: for {@code learning} their counts make the
 *       hot head hot and the service computes those keys itself.
 *   <li>At {@code warm}, (b)–(e) write every key's value at once (the same TTL, or TTL ± 10 %), the
 *       service recomputes its hot set at that moment too (its keys then expire with the others'),
 *       and (a)–(e)'s readers start.
 *   <li>Everything is measured from {@code warm + settle} to {@code warm + measured}.
 * </ol>
 */
final class StampedeRun {

  static final int REDIS_DATABASE = 9;

  private StampedeRun() {}

  static RunData run(
      BenchContext bench,
      RedisAdmin admin,
      StampedeSettings settings,
      StampedeSettings.Combination combination,
      SourceCost cost,
      String run)
      throws Exception {
    String jdbcUrl = bench.newDatabase("stampede_" + combination.scenario().id() + "_" + cost.id());
    SourceFunction.install(jdbcUrl);
    admin.flushDatabase();
    String redisUrl = bench.redis().url();
    TtlPolicy ttl = new TtlPolicy(settings.ttl(), combination.scenario());
    ZipfKeys zipf = new ZipfKeys(settings.keys(), settings.zipfExponent(), settings.hotKeys());
    Map<StrategyKind, ReaderApp> apps = new EnumMap<>(StrategyKind.class);
    try (ExecutionLog executions = new ExecutionLog(jdbcUrl, run);
        MachineMonitor monitor = new MachineMonitor()) {
      executions.awaitListening();
      SourceFunction.checkCounting(jdbcUrl, run, executions);
      RunClock clock = new RunClock();
      Map<String, Long> serviceCommandsFrom;
      Map<String, Long> statsFrom;
      Map<StrategyKind, Map<String, Long>> commandsFrom = new EnumMap<>(StrategyKind.class);
      Map<StrategyKind, Map<String, Long>> commandsTo = new EnumMap<>(StrategyKind.class);
      List<String> hotSet;
      Map<String, String> aligned;
      Map<String, Object> serviceMetrics = new LinkedHashMap<>();
      long learningStart;
      long warm;
      long countFrom;
      long end;
      try (RefresherServer server =
              RefresherServer.start("redis://127.0.0.1:" + bench.redis().port() + "/" + REDIS_DATABASE, jdbcUrl, settings);
          ServiceLogTap serviceLog = new ServiceLogTap()) { // after the start: Dropwizard sets up logging then
        CommandCounter serviceCounter = CommandCounter.attachTo(server.redisson());
        server.putTemplate(
            "stampede-" + run,
            run + ":" + StrategyKind.REFRESHER.id() + ":{id}",
            "stampede",
            Map.of("run", run, "cost", cost.argument()),
            settings.ttl());
        ReaderApp.Setup setup =
            new ReaderApp.Setup(run, redisUrl, REDIS_DATABASE, jdbcUrl, settings, ttl, cost, clock, zipf);
        long learningNanos = settings.learning().toNanos();
        long measuredNanos = settings.measured().toNanos();
        long seed = run.hashCode() * 31L;
        for (StrategyKind kind : StrategyKind.all()) {
          long duration = kind == StrategyKind.REFRESHER ? learningNanos + TimeUnit.SECONDS.toNanos(2) + measuredNanos : measuredNanos;
          apps.put(kind, new ReaderApp(kind, setup, duration, seed + kind.ordinal()));
        }

        // (a) and (f) first: (f) must learn which keys are hot before the others start.
        long planned = System.nanoTime();
        long warmNanos = planned + TimeUnit.SECONDS.toNanos(2) + learningNanos;
        long warmWall = clock.wallMicros(warmNanos);
        long nowWall = clock.nowWallMicros();
        apps.get(StrategyKind.NEVER_EXPIRES).strategy.prefill(nowWall, null);
        // (f)'s values as if computed at the warm moment, like the others': they expire a TTL after it.
        apps.get(StrategyKind.REFRESHER).strategy.prefill(warmWall, expiries(settings, ttl, warmWall, seed + 100));
        long learningNanosStart = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(100);
        // Its schedule lasts learning + 2 s + measured from here: it ends a little after the others'
        // (by what the warm-up took); those last reads are not measured.
        apps.get(StrategyKind.REFRESHER).readers.start(learningNanosStart);
        learningStart = clock.wallMicros(learningNanosStart);

        // The others' warm-up, written just before their readers start.
        sleepUntil(warmNanos - TimeUnit.MILLISECONDS.toNanos(400));
        for (StrategyKind kind : List.of(StrategyKind.CACHE_ASIDE, StrategyKind.LOCK, StrategyKind.XFETCH_1, StrategyKind.XFETCH_15, StrategyKind.CAFFEINE)) {
          apps.get(kind).strategy.prefill(warmWall, expiries(settings, ttl, warmWall, seed + 200 + kind.ordinal()));
        }
        String prefix = run + ":" + StrategyKind.REFRESHER.id() + ":";
        hotSet = server.hotKeys().stream().filter(key -> key.startsWith(prefix)).toList();
        // The service's hot keys are recomputed at the warm moment (synchronised) or spread over
        // ± jitter × TTL around it (jittered), like the others' expiries.
        long spreadNanos = Math.round(2 * combination.scenario().jitter() * settings.ttl().toNanos());
        sleepUntil(warmNanos - spreadNanos / 2);
        List<String> toAlign = hotSet;
        java.util.concurrent.CompletableFuture<Map<String, String>> alignment =
            java.util.concurrent.CompletableFuture.supplyAsync(
                () -> {
                  try {
                    return RefresherStrategy.align(server, toAlign, combination.scenario(), settings.ttl().toMillis());
                  } catch (Exception e) {
                    throw new java.util.concurrent.CompletionException(e);
                  }
                });
        sleepUntil(warmNanos);
        for (StrategyKind kind : StrategyKind.all()) {
          if (kind != StrategyKind.REFRESHER) {
            apps.get(kind).readers.start(warmNanos);
          }
        }
        warm = warmWall;
        aligned = alignment.get(2 * settings.ttl().toMillis() + 60_000, TimeUnit.MILLISECONDS);

        long countFromNanos = warmNanos + settings.settle().toNanos();
        sleepUntil(countFromNanos);
        countFrom = clock.wallMicros(countFromNanos);
        serviceCommandsFrom = serviceCounter.snapshot();
        statsFrom = admin.commandStats();
        apps.forEach((kind, app) -> commandsFrom.put(kind, app.commands.snapshot()));
        long endNanos = warmNanos + measuredNanos;
        sleepUntil(endNanos);
        end = clock.wallMicros(endNanos);
        apps.forEach((kind, app) -> commandsTo.put(kind, app.commands.snapshot()));
        Map<String, Long> serviceCommands = RedisAdmin.delta(serviceCommandsFrom, serviceCounter.snapshot());
        Map<String, Long> serverStats = RedisAdmin.delta(statsFrom, admin.commandStats());
        for (ReaderApp app : apps.values()) {
          app.readers.awaitDone(30, TimeUnit.SECONDS);
        }
        serviceMetrics.putAll(serviceMetrics(server));
        Map<String, Integer> serviceWarnings = serviceLog.counts();
        Map<StrategyKind, RunData.StrategyData> strategies = new EnumMap<>(StrategyKind.class);
        apps.forEach(
            (kind, app) ->
                strategies.put(
                    kind,
                    new RunData.StrategyData(
                        kind,
                        app.readers.log(),
                        app.writes.writes(),
                        RedisAdmin.delta(commandsFrom.get(kind), commandsTo.get(kind)),
                        app.strategy.counters(),
                        app.strategy.description(),
                        app.readers.failures(),
                        app.readers.firstFailure() == null ? null : String.valueOf(app.readers.firstFailure()),
                        app.readers.stillRunning())));
        closeAll(apps);
        apps.clear();
        // executions are complete once the listener has drained (close below)
        executions.close();
        if (executions.failure() != null) {
          throw new IllegalStateException("the execution log failed", executions.failure());
        }
        return new RunData(
            settings,
            combination,
            cost,
            run,
            learningStart,
            warm,
            countFrom,
            end,
            strategies,
            executions.executions(),
            serviceCommands,
            serverStats,
            hotSet,
            aligned,
            serviceMetrics,
            serviceWarnings,
            monitor.cpu(),
            monitor.pauses());
      }
    } finally {
      closeAll(apps);
    }
  }

  /**
   * Each key's first expiry, 0 for a key left absent. The hot head's follow the scenario: all at
   * warm + TTL (synchronised), or warm + TTL ± jitter (jittered). The tail starts as a running
   * cache-aside tail is: a key read at λ reads/s is present with probability λ·TTL / (1 + λ·TTL)
   * (after each miss it stays a TTL, then waits for its next read), and its expiry lies anywhere
   * within the next TTL. So the warm-up neither floods the tail with misses nor hides them.
   */
  private static long[] expiries(StampedeSettings settings, TtlPolicy ttl, long warmWall, long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    long[] expires = new long[settings.keys() + 1];
    double spread = ttl.maxMillis() - ttl.nominalMillis();
    double harmonic = ZipfKeys.harmonic(settings.keys(), settings.zipfExponent());
    double ttlSeconds = ttl.nominalMillis() / 1e3;
    for (int rank = 1; rank <= settings.keys(); rank++) {
      if (rank <= settings.hotKeys()) {
        expires[rank] = warmWall + Math.round(ttl.nominalMillis() + spread * (2 * random.nextDouble() - 1)) * 1_000;
        continue;
      }
      double rate = settings.readsPerSecond() / (harmonic * Math.pow(rank, settings.zipfExponent()));
      double present = rate * ttlSeconds / (1 + rate * ttlSeconds);
      expires[rank] =
          random.nextDouble() < present
              ? warmWall + Math.max(1, Math.round(ttl.nominalMillis() * random.nextDouble())) * 1_000
              : 0;
    }
    return expires;
  }

  private static Map<String, Object> serviceMetrics(RefresherServer server) {
    Map<String, Object> metrics = new LinkedHashMap<>();
    var registry = server.metrics();
    for (String name : List.of("refresher.refresh.refreshed", "refresher.refresh.failed", "refresher.refresh.skipped",
        "refresher.hot.promoted", "refresher.hot.demoted")) {
      var meter = registry.getMeters().get(name);
      var counter = registry.getCounters().get(name);
      if (meter != null) {
        metrics.put(name, meter.getCount());
      } else if (counter != null) {
        metrics.put(name, counter.getCount());
      }
    }
    registry.getMeters().forEach((name, meter) -> {
      if ((name.startsWith("refresher.source.stampede.failed.") || name.startsWith("refresher.refresh.skipped."))
          && meter.getCount() > 0) {
        metrics.put(name, meter.getCount());
      }
    });
    var lag = registry.getTimers().get("refresher.refresh.lag");
    if (lag != null) {
      var snapshot = lag.getSnapshot();
      metrics.put("refresher.refresh.lag.p99Millis", snapshot.get99thPercentile() / 1e6);
      metrics.put("refresher.refresh.lag.maxMillis", snapshot.getMax() / 1e6);
    }
    return metrics;
  }

  private static void closeAll(Map<StrategyKind, ReaderApp> apps) {
    for (ReaderApp app : apps.values()) {
      try {
        app.close();
      } catch (Exception e) {
        System.err.println("stampede: closing " + app.kind + " failed: " + e);
      }
    }
  }

  private static void sleepUntil(long nanoTime) {
    long now;
    while ((now = System.nanoTime()) < nanoTime) {
      LockSupport.parkNanos(nanoTime - now);
    }
  }

  static Duration since(long startNanos) {
    return Duration.ofNanos(System.nanoTime() - startNanos);
  }
}
