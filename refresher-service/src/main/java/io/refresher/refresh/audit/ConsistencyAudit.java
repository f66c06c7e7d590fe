package io.refresher.refresh.audit;

import io.refresher.registry.RefreshPolicy;
import io.refresher.registry.Registration;
import io.refresher.registry.RegistrationLookup;
import io.refresher.registry.RegistrationRepository;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The consistency audit's rounds: each samples the kept keys (the {@code always} registrations and
 * the hot set) of every audited datasource at its rate, chosen at random, spread over the round.
 * When a round takes more samples than the datasource has kept keys, it goes through all of them in
 * a shuffled order, then again: a key is sampled at least once per round while a round's samples
 * outnumber the kept keys, and on average every {@code keptKeys / rate} seconds otherwise.
 *
 * <p>The list of kept keys is read (like the freshness sweep reads it: a page of registry rows and
 * a lookup per thousand keys) at most every {@code poolRefresh}; a key registered since waits for
 * the next read.
 */
public final class ConsistencyAudit {

  static final int PAGE = 1000;

  /** The most kept keys a replica holds in its sampling list, all datasources together. */
  static final int MAX_POOL = 200_000;

  private record Pool(long atMillis, Map<String, List<Registration>> byDatasource) {}

  private final RegistrationRepository registrations;
  private final Supplier<Collection<String>> hotSet;
  private final RegistrationLookup lookup;
  private final Function<String, String> datasourceOfSource;
  private final ConsistencyCheck check;
  private final ScheduledExecutorService executor;
  private final AuditSettings settings;
  private final InstantSource clock;
  private final Random random;
  private volatile Pool pool;
  private volatile boolean stopped;
  /** The samples of the round under way, cancelled by {@link #stop}. */
  private final List<Future<?>> underWay = new java.util.concurrent.CopyOnWriteArrayList<>();

  public ConsistencyAudit(
      RegistrationRepository registrations,
      Supplier<Collection<String>> hotSet,
      RegistrationLookup lookup,
      Function<String, String> datasourceOfSource,
      ConsistencyCheck check,
      ScheduledExecutorService executor,
      AuditSettings settings,
      InstantSource clock,
      Random random) {
    this.registrations = registrations;
    this.hotSet = hotSet;
    this.lookup = lookup;
    this.datasourceOfSource = datasourceOfSource;
    this.check = check;
    this.executor = executor;
    this.settings = settings;
    this.clock = clock;
    this.random = random;
  }

  /**
   * Runs one round: starts its samples spread over {@code round} and returns once they have run
   * (their second looks, if any, run later on the same threads).
   *
   * @return the samples started
   * @throws io.refresher.failure.CacheUnavailableException when the hot set cannot be read
   */
  public int round() throws InterruptedException {
    if (stopped || !settings.enabled()) {
      return 0;
    }
    Map<String, List<Registration>> kept = pool();
    long roundMillis = settings.round().toMillis();
    List<Future<?>> started = new ArrayList<>();
    kept.forEach(
        (datasource, keys) -> {
          int samples = settings.samplesPerRound(datasource);
          List<Registration> order = new ArrayList<>(keys);
          for (int i = 0; i < samples && !order.isEmpty() && !stopped; i++) {
            if (i % order.size() == 0) {
              Collections.shuffle(order, random);
            }
            Registration registration = order.get(i % order.size());
            started.add(executor.schedule(() -> check.sample(registration), i * roundMillis / samples, TimeUnit.MILLISECONDS));
          }
        });
    underWay.addAll(started);
    if (stopped) {
      started.forEach(sample -> sample.cancel(true));
    }
    // A sample waits at most its datasource's wait budget and its source's timeout; a round that
    // still has samples running well after its end gives them up rather than hold the job.
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(2 * roundMillis + 60_000);
    for (Future<?> sample : started) {
      try {
        sample.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
      } catch (ExecutionException | CancellationException e) {
        // the check reports its own failures; a cancelled one was stopped with the service
      } catch (TimeoutException e) {
        sample.cancel(true);
      }
    }
    underWay.removeAll(started);
    return started.size();
  }

  /** Stops starting samples (the service is stopping); a round under way returns soon. */
  public void stop() {
    stopped = true;
    // A sample not started yet would otherwise hold the round until its deadline: the executor's
    // shutdown drops queued tasks without completing their futures.
    underWay.forEach(sample -> sample.cancel(true));
  }

  /** The kept keys of the audited datasources, read again when older than {@code poolRefresh}. */
  private Map<String, List<Registration>> pool() {
    Pool current = pool;
    long now = clock.millis();
    if (current != null && now - current.atMillis() < settings.poolRefresh().toMillis()) {
      return current.byDatasource();
    }
    Map<String, List<Registration>> byDatasource = new HashMap<>();
    Set<String> seen = new LinkedHashSet<>();
    String after = "";
    while (seen.size() < MAX_POOL) {
      List<String> keys = registrations.keysAfter(after, PAGE, RefreshPolicy.ALWAYS);
      if (keys.isEmpty()) {
        break;
      }
      seen.addAll(keys);
      add(keys, byDatasource);
      after = keys.get(keys.size() - 1);
      if (keys.size() < PAGE) {
        break;
      }
    }
    List<String> hot = new ArrayList<>();
    for (String key : hotSet.get()) {
      if (seen.size() >= MAX_POOL) {
        break;
      }
      if (seen.add(key)) {
        hot.add(key);
      }
      if (hot.size() == PAGE) {
        add(hot, byDatasource);
        hot = new ArrayList<>();
      }
    }
    add(hot, byDatasource);
    pool = new Pool(now, byDatasource);
    return byDatasource;
  }

  private void add(List<String> keys, Map<String, List<Registration>> byDatasource) {
    if (keys.isEmpty()) {
      return;
    }
    for (Registration registration : lookup.findAll(keys).values()) {
      String datasource = datasourceOfSource.apply(registration.source());
      if (datasource != null && settings.samplesPerRound(datasource) > 0) {
        byDatasource.computeIfAbsent(datasource, name -> new ArrayList<>()).add(registration);
      }
    }
  }
}
