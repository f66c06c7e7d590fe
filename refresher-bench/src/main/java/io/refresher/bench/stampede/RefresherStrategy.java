package io.refresher.bench.stampede;

import io.refresher.client.redisson.RedissonDriver;
import io.refresher.client.RefresherClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * (f) Refresher: the real service (in-process) keeps the hot keys fresh, computing them from a
 * template covering every key of this strategy; applications read through {@code
 * refresher-client}'s {@code get(key, ttl, loader)}, one client per application instance, which
 * counts every read (so the service learns which keys are hot) and loads the keys the service
 * does not keep with its single flight.
 */
final class RefresherStrategy implements Strategy {

  private final StrategyContext context;
  private final RefresherClient[] clients;

  RefresherStrategy(StrategyContext context) {
    this.context = context;
    clients = new RefresherClient[context.instances()];
    for (int i = 0; i < clients.length; i++) {
      clients[i] = RefresherClient.builder(RedissonDriver.of(context.redisson())).build();
    }
  }

  /**
   * The warm-up of the values nobody has computed yet: each key written by the client (as its
   * loader would), expiring at {@code expiresMicros[rank]}. The hot ones are the service's soon:
   * the readers' counts make them hot and the service computes them itself.
   */
  @Override
  public void prefill(long writtenMicros, long[] expiresMicros) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int rank = 1; rank <= context.keys(); rank++) {
        if (expiresMicros[rank] == 0) {
          continue; // absent at the start
        }
        int r = rank;
        done.add(
            pool.submit(
                () -> {
                  long ttlMillis = Math.max(1, (expiresMicros[r] - WriteLog.nowMicros()) / 1_000);
                  String value = SourceValues.warm(context.kind().id(), r, writtenMicros);
                  clients[r % clients.length].get(context.key(r), Duration.ofMillis(ttlMillis), () -> value);
                  context.writes().add(r, writtenMicros, expiresMicros[r]);
                  return null;
                }));
      }
      for (Future<?> future : done) {
        future.get();
      }
    } finally {
      pool.shutdownNow();
    }
  }

  @Override
  public String read(int rank, int instance) {
    String key = context.key(rank);
    long ttlMillis = context.ttl().nextMillis();
    return clients[instance].get(
        key,
        Duration.ofMillis(ttlMillis),
        () -> {
          String value = context.source().compute(rank);
          context.writes().addNow(rank, ttlMillis);
          return value;
        });
  }

  /**
   * Sets the phase of the service's refreshes like the other strategies' writes: recomputes every
   * key of the service's hot set now (synchronised) or at random moments over the next 2 × jitter
   * × TTL (jittered; the caller starts it that much before the others' warm-up), through the admin
   * API. Returns the keys it refreshed and their outcomes.
   */
  static Map<String, String> align(RefresherServer server, List<String> hotKeys, Scenario scenario, long ttlMillis)
      throws Exception {
    Map<String, CompletableFuture<String>> outcomes = new LinkedHashMap<>();
    long spread = Math.round(2 * scenario.jitter() * ttlMillis);
    java.util.concurrent.ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
    try {
      java.util.Random random = new java.util.Random(42);
      for (String key : hotKeys) {
        long delay = spread == 0 ? 0 : (long) (random.nextDouble() * spread);
        CompletableFuture<String> outcome = new CompletableFuture<>();
        timer.schedule(
            () -> server.refresh(key).whenComplete((value, error) -> {
              if (error != null) {
                outcome.completeExceptionally(error);
              } else {
                outcome.complete(value);
              }
            }),
            delay,
            TimeUnit.MILLISECONDS);
        outcomes.put(key, outcome);
      }
      Map<String, String> result = new LinkedHashMap<>();
      for (Map.Entry<String, CompletableFuture<String>> entry : outcomes.entrySet()) {
        result.put(entry.getKey(), entry.getValue().get(spread + 60_000, TimeUnit.MILLISECONDS));
      }
      return result;
    } finally {
      timer.shutdownNow();
    }
  }

  @Override
  public String description() {
    return "the Refresher service (in-process, the real one, on the same Redis and PostgreSQL) with one key "
        + "template covering this strategy's keys (`<run>:f:{id}`, the source `SELECT bench_compute(...)`, "
        + "TTL as the others) and no key registered by hand: the hot set is learned from the readers' counts. "
        + "Readers call `RefresherClient.get(key, ttl, loader)` (one client per application instance, "
        + context.instances() + " instances; one `EVALSHA` reads the value and its metadata): a value the "
        + "service keeps is returned as it is; a key it does not keep (the tail) is loaded by the client's "
        + "single flight (one loader per key across threads and instances, through a `SET NX PX` lock) and "
        + "recomputed early by one caller (XFetch, β = 1).";
  }

  @Override
  public Map<String, Long> counters() {
    long loaderRuns = 0;
    long early = 0;
    long fallbacks = 0;
    long recorded = 0;
    long dropped = 0;
    for (RefresherClient client : clients) {
      RefresherClient.Stats stats = client.stats();
      loaderRuns += stats.loaderRuns();
      early += stats.earlyRecomputations();
      fallbacks += stats.fallbacks();
      recorded += stats.access().recorded();
      dropped += stats.access().dropped();
    }
    return Map.of(
        "clientLoaderRuns", loaderRuns,
        "clientEarlyRecomputations", early,
        "clientFallbacks", fallbacks,
        "readsCounted", recorded,
        "countsDropped", dropped);
  }

  @Override
  public void close() {
    for (RefresherClient client : clients) {
      client.close();
    }
  }
}
