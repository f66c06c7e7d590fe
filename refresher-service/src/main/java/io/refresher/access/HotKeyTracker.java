package io.refresher.access;

import io.refresher.client.protocol.AccessProtocol;
import io.refresher.refresh.DueIndex;
import io.refresher.registry.RefreshPolicy;
import io.refresher.registry.Registration;
import io.refresher.registry.RegistrationLookup;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns the access counters into popularity and popularity into the hot set, once per sampling
 * interval, on one replica at a time (a clustered Quartz job).
 *
 * <ol>
 *   <li>Fold every complete access second not yet consumed into the popularity scores, and delete
 *       it.
 *   <li>Rank keys whose rate is at or above the threshold; keep those a registration or template
 *       covers, up to the cap (the rest are counted as left out, never dropped silently).
 *   <li>Keys that were hot and fell below the threshold stay for {@code coldAfter} (while room
 *       remains under the cap), then are demoted: they leave the due index (unless their policy
 *       is {@code always}) and their values expire on their own.
 *   <li>Newly hot keys are promoted: added to the due index as due now.
 * </ol>
 *
 * <p>Cost per tick: one pipelined Redis batch per consumed second, a page query
 * per 10,000 keys above the threshold, and registry lookups only for keys that are not already hot.
 * Every {@value #FULL_RESOLVE_EVERY} ticks the whole hot set is looked up again (catching deleted
 * registrations and templates) and re-added to the due index where missing.
 *
 * <p>Consuming the counters is idempotent ({@link PopularityStore#add}): a sampling that failed
 * part-way is finished by the next one, and two samplers at once (Quartz's exclusion does not hold
 * across a partition) count every read once.
 *
 * <p>After a pause (the sampler stopped, a fresh start) it catches up on at most {@link
 * CatchUp#secondsPerSampling()} seconds per tick, oldest first, read {@link
 * CatchUp#secondsPerRead()} at a time: memory and a tick's duration stay bounded however long it
 * was paused, and the counter lag shows the seconds still pending.
 */
public final class HotKeyTracker {

  private static final Logger LOG = LoggerFactory.getLogger(HotKeyTracker.class);
  private static final int PAGE = 10_000;
  private static final int FULL_RESOLVE_EVERY = 30;
  /** Keys read below 1% of the threshold are forgotten. */
  private static final double FORGET_FRACTION = 0.01;
  /** Seconds older than this are not read: their buckets have expired. */
  private static final int MAX_SECONDS_BEHIND = AccessProtocol.BUCKET_TTL_SECONDS;
  /**
   * Seconds read per round trip (16 {@code HGETALL}s per second, pipelined). A round trip's counts
   * are on the heap together until they are summed: at 100,000 distinct keys read per second, one
   * second is 16 hashes of 6,250 fields decoded into maps of strings, a few tens of MB. One second
   * per round trip is also the fastest: the client's decoding of a pipelined reply costs more per
   * second the more seconds it holds ({@code SamplerCatchUpBench}, 100,000 keys, 60 s pause, 768 MB
   * heap: caught up in 19.5 s, median of 4 runs, with 1 s per round trip, 28 s with 2, 33 s with 3,
   * 42 s with 5; all 60 s in one round trip did not finish within two attempts of 120 s). The extra round trips of a steady-state sampling
   * (one per second of the interval) cost a network latency each.
   */
  static final int SECONDS_PER_READ = 1;
  /**
   * Seconds consumed per sampling at most, unless two sampling intervals are more (then the bound is
   * those, see {@link CatchUp#of}). The sums of a sampling's seconds are held until they are added to
   * popularity: at 100,000 distinct keys per second, 100,000 entries (about 10 MB) when the same
   * keys are read every second, up to 10 times that when every second has keys of its own. A
   * sampling of 10 such seconds took 3-6 s ({@code SamplerCatchUpBench}; the whole catch-up ran in
   * a 128 MB heap), where one of 60 s held the whole minute at once. With the default 5 s
   * interval a 60 s backlog is gone after 12 samplings (a minute, as long as the pause); with 1 s
   * after 7.
   */
  static final int MIN_SECONDS_PER_SAMPLING = 10;
  private static final long CAP_LOG_EVERY_MILLIS = 60_000;
  private static final int UNRESOLVED_MEMORY = 100_000;
  /**
   * At the cap, a key displaces a hot one only when its rate is this much higher: two keys of about
   * the same rate at the edge would otherwise swap places every sampling, each swap a promotion
   * (an immediate refresh) and a demotion.
   */
  static final double CAP_HYSTERESIS = 0.10;
  private static final long UNRESOLVED_RECHECK_MILLIS = 10_000;

  private final AccessCounts counts;
  private final PopularityStore popularity;
  private final HotSetStore hot;
  private final RegistrationLookup lookup;
  private final DueIndex due;
  private final AccessSettings settings;
  private final DecayingRate decay;
  private final HotSetListener listener;
  private final InstantSource clock;
  private final CatchUp catchUp;

  private long ticks;
  private long capBitingSince = -1;
  private long capLoggedAt;
  /** Keys above the threshold that nothing covers, with when to look them up again. */
  private final Map<String, Long> unresolvedUntil =
      new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Long> eldest) {
          return size() > UNRESOLVED_MEMORY;
        }
      };

  public HotKeyTracker(
      AccessCounts counts,
      PopularityStore popularity,
      HotSetStore hot,
      RegistrationLookup lookup,
      DueIndex due,
      AccessSettings settings,
      HotSetListener listener,
      InstantSource clock) {
    this(counts, popularity, hot, lookup, due, settings, listener, clock, CatchUp.of(settings));
  }

  /** With other catch-up bounds than {@link CatchUp#of the defaults} (benchmarks). */
  public HotKeyTracker(
      AccessCounts counts,
      PopularityStore popularity,
      HotSetStore hot,
      RegistrationLookup lookup,
      DueIndex due,
      AccessSettings settings,
      HotSetListener listener,
      InstantSource clock,
      CatchUp catchUp) {
    this.catchUp = catchUp;
    this.counts = counts;
    this.popularity = popularity;
    this.hot = hot;
    this.lookup = lookup;
    this.due = due;
    this.settings = settings;
    this.decay = new DecayingRate(settings.halfLife());
    this.listener = listener;
    this.clock = clock;
  }

  public DecayingRate decay() {
    return decay;
  }

  /**
   * How many access seconds a sampling reads per round trip and consumes at most.
   *
   * @param secondsPerRead seconds read per round trip (their counts are on the heap together)
   * @param secondsPerSampling seconds consumed per sampling at most, the rest left for the next
   */
  public record CatchUp(int secondsPerRead, int secondsPerSampling) {

    public CatchUp {
      if (secondsPerRead < 1 || secondsPerSampling < 1 || secondsPerSampling > MAX_SECONDS_BEHIND) {
        throw new IllegalArgumentException(
            "catch-up bounds must be 1.." + MAX_SECONDS_BEHIND + " s, were " + secondsPerRead + " and " + secondsPerSampling);
      }
    }

    /**
     * {@value HotKeyTracker#SECONDS_PER_READ} second per round trip; {@value
     * HotKeyTracker#MIN_SECONDS_PER_SAMPLING} seconds per sampling, or two sampling intervals when
     * that is more (at most the {@value HotKeyTracker#MAX_SECONDS_BEHIND} s a bucket lives). Each
     * sampling then consumes at least one interval more than arrives until the next, so a backlog
     * shrinks whatever the interval, and is gone within about as long as the pause lasted.
     */
    public static CatchUp of(AccessSettings settings) {
      long intervalSeconds = Math.max(1, (settings.sampleInterval().toMillis() + 999) / 1000);
      int perSampling = (int) Math.min(MAX_SECONDS_BEHIND, Math.max(MIN_SECONDS_PER_SAMPLING, 2 * intervalSeconds));
      return new CatchUp(SECONDS_PER_READ, perSampling);
    }
  }

  /** One sampling: consume counters, recompute the hot set, promote and demote. */
  public synchronized HotSetReport tick() {
    long now = clock.millis();
    long lastComplete = Math.floorDiv(now - settings.settle().toMillis(), 1000L) - 1;
    PopularityStore.State state =
        popularity
            .state()
            .orElseGet(
                () ->
                    popularity.initialise(
                        new PopularityStore.State(now, lastComplete - MAX_SECONDS_BEHIND)));
    // An unfinished consumption's increments are against the landmark in force: it is finished
    // first, and the rescale waits for the next sampling (scores have room to e^709).
    if (state.consuming().isEmpty() && decay.needsRescale(now, state.landmarkMillis())) {
      state =
          popularity.rescale(state, decay.rescaleFactor(now, state.landmarkMillis()), now)
              ? new PopularityStore.State(now, state.cursorSecond())
              : popularity.state().orElse(state); // another sampler rescaled or started consuming
    }
    long landmark = state.landmarkMillis();
    Consumed consumed = consume(state, lastComplete);
    long cursor = consumed.cursor();
    popularity.prune(decay.score(settings.hotThreshold() * FORGET_FRACTION, now, landmark), settings.maxTracked());

    HotSetReport report = recompute(now, landmark, consumed, cursor);
    listener.onTick(report);
    logCap(now, report.leftOutByCap());
    if (!report.promoted().isEmpty() || !report.demoted().isEmpty()) {
      LOG.info(
          "hot set: {} keys; promoted {} {}, demoted {} {}",
          report.hotSize(),
          report.promoted().size(),
          sample(report.promoted()),
          report.demoted().size(),
          sample(report.demoted()));
    }
    return report;
  }

  private record Consumed(long reads, int seconds, long cursor) {}

  /**
   * Folds in the oldest pending seconds, at most {@link CatchUp#secondsPerSampling()} of them, a
   * round trip of {@link CatchUp#secondsPerRead()} seconds at a time: each round trip's counts are
   * summed into the increments and dropped before the next is read. The increments and the cursor
   * (the last second consumed) are written together, and only then are the buckets deleted.
   *
   * <p>Consuming is idempotent ({@link PopularityStore#add}): a sampling that fails part-way leaves
   * its seconds unfinished in the store, and the next sampling, here or on another replica, reads
   * exactly those seconds again and adds only what was not added yet. A sampling whose write is
   * refused (another sampler consumed these seconds meanwhile, or is consuming others on top of
   * the same cursor) consumes nothing and deletes nothing.
   */
  private Consumed consume(PopularityStore.State state, long lastComplete) {
    long cursor = state.cursorSecond();
    long from;
    long until;
    int bound;
    if (state.consuming().isPresent()) {
      from = state.consuming().get().first();
      until = state.consuming().get().last();
      bound = Integer.MAX_VALUE; // bounded when it was started
    } else if (lastComplete > cursor) {
      from = Math.max(cursor + 1, lastComplete - MAX_SECONDS_BEHIND + 1);
      until = lastComplete;
      bound = catchUp.secondsPerSampling();
    } else {
      return new Consumed(0, 0, cursor);
    }
    // The bound counts seconds that held reads: an empty second costs one round trip and nothing
    // on the heap, so a fresh start (a minute of empty buckets behind it) catches up at once.
    long to = from - 1;
    int withReads = 0;
    Map<String, Double> increments = new HashMap<>();
    List<Long> seconds = new ArrayList<>();
    long reads = 0;
    for (long first = from; first <= until && withReads < bound; first += catchUp.secondsPerRead()) {
      List<Long> chunk = new ArrayList<>(catchUp.secondsPerRead());
      for (long second = first; second <= Math.min(until, first + catchUp.secondsPerRead() - 1); second++) {
        chunk.add(second);
      }
      for (Map.Entry<Long, Map<String, Long>> bucket : counts.readAll(chunk).entrySet()) {
        if (!bucket.getValue().isEmpty()) {
          withReads++;
        }
        double weight = decay.weight((bucket.getKey() + 1) * 1000, state.landmarkMillis());
        for (Map.Entry<String, Long> count : bucket.getValue().entrySet()) {
          increments.merge(count.getKey(), count.getValue() * weight, Double::sum);
          reads += count.getValue();
        }
      }
      seconds.addAll(chunk);
      to = chunk.get(chunk.size() - 1);
    }
    if (!popularity.add(state, new PopularityStore.Seconds(from, to), increments)) {
      // Two samplers at once (a replica cut off from the scheduler's database may still be in a
      // sampling when another takes over), or a consumption given up: the state is read again next time.
      LOG.info("access seconds {}..{} not consumed by this sampling: popularity's state moved on meanwhile", from, to);
      return new Consumed(0, 0, cursor);
    }
    counts.delete(seconds);
    return new Consumed(reads, seconds.size(), to);
  }

  private HotSetReport recompute(long now, long landmark, Consumed consumed, long cursor) {
    int cap = settings.maxHotKeys();
    boolean fullResolve = ticks++ % FULL_RESOLVE_EVERY == 0;
    Map<String, Long> previous = hot.all();
    Map<String, Registration> previousResolved = fullResolve ? lookup.findAll(previous.keySet()) : Map.of();

    LinkedHashMap<String, Double> selected = new LinkedHashMap<>();
    List<PopularityStore.Scored> incumbentsLeftOut = new ArrayList<>();
    int leftOut = 0;
    int unresolved = 0;
    List<UncoveredKey> uncovered = new ArrayList<>();
    double minScore = decay.score(settings.hotThreshold(), now, landmark);
    for (int offset = 0; ; offset += PAGE) {
      List<PopularityStore.Scored> page = popularity.descending(minScore, offset, PAGE);
      Set<String> covered = covered(page, previous, previousResolved, fullResolve, now);
      for (PopularityStore.Scored scored : page) {
        if (!covered.contains(scored.key())) {
          unresolved++;
          if (uncovered.size() < UncoveredKeys.KEPT) { // the pages come hottest first
            uncovered.add(new UncoveredKey(scored.key(), decay.rate(scored.score(), now, landmark)));
          }
        } else if (selected.size() < cap) {
          selected.put(scored.key(), decay.rate(scored.score(), now, landmark));
        } else {
          leftOut++;
          if (previous.containsKey(scored.key())) {
            incumbentsLeftOut.add(scored);
          }
        }
      }
      if (page.size() < PAGE) {
        break;
      }
    }
    keepIncumbentsAtTheCap(selected, incumbentsLeftOut, previous, now, landmark);

    // Keys that cooled down stay for coldAfter, hottest first, while the cap leaves room.
    long coldSince = now - settings.coldAfter().toMillis();
    List<String> cooling = new ArrayList<>();
    for (Map.Entry<String, Long> entry : previous.entrySet()) {
      String key = entry.getKey();
      if (!selected.containsKey(key)
          && entry.getValue() >= coldSince
          && (!fullResolve || previousResolved.containsKey(key))) {
        cooling.add(key);
      }
    }
    Map<String, Double> coolingScores = popularity.scores(cooling);
    cooling.sort(Comparator.comparingDouble((String key) -> coolingScores.getOrDefault(key, 0.0)).reversed());
    Set<String> kept = new HashSet<>();
    for (String key : cooling) {
      if (selected.size() + kept.size() >= cap) {
        break;
      }
      kept.add(key);
    }

    List<String> promoted = new ArrayList<>();
    Map<String, Long> lastHot = new HashMap<>();
    // A hot key's last-hot time is rewritten only once it is a quarter of coldAfter old: a hot set
    // of 100k keys then costs no write per sampling, and a key still leaves 0.75-1x coldAfter after
    // it cooled down.
    long refreshBefore = now - settings.coldAfter().toMillis() / 4;
    for (String key : selected.keySet()) {
      Long seen = previous.get(key);
      if (seen == null) {
        promoted.add(key);
        lastHot.put(key, now);
      } else if (seen <= refreshBefore) {
        lastHot.put(key, now);
      }
    }
    List<String> demoted = new ArrayList<>();
    for (String key : previous.keySet()) {
      if (!selected.containsKey(key) && !kept.contains(key)) {
        demoted.add(key);
      }
    }
    hot.update(lastHot, demoted);
    if (fullResolve) {
      // Self-healing: every hot key is in the due index. A hot-set write in flight while Redis lost
      // its data can bring a key back into the hot set without its due entry; without this it would
      // wait for the periodic sweep.
      List<String> hotKeys = new ArrayList<>(selected.keySet());
      hotKeys.addAll(kept);
      if (!hotKeys.isEmpty()) {
        due.addMissing(hotKeys, now);
      }
    } else if (!promoted.isEmpty()) {
      due.addMissing(promoted, now);
    }
    if (!demoted.isEmpty()) {
      due.remove(stopRefreshing(demoted, fullResolve ? previousResolved : lookup.findAll(demoted)));
    }
    return new HotSetReport(
        consumed.reads(),
        consumed.seconds(),
        now - (cursor + 1) * 1000,
        selected.size() + kept.size(),
        promoted,
        demoted,
        leftOut,
        unresolved,
        popularity.size(),
        List.copyOf(uncovered));
  }

  /**
   * Swaps the weakest newcomers back out for the hottest incumbents that the ranking pushed past
   * the cap, as long as the newcomer is not {@link #CAP_HYSTERESIS} hotter. The set stays at the
   * cap; the left-out count does not change.
   */
  private void keepIncumbentsAtTheCap(
      LinkedHashMap<String, Double> selected,
      List<PopularityStore.Scored> incumbentsLeftOut,
      Map<String, Long> previous,
      long now,
      long landmark) {
    if (incumbentsLeftOut.isEmpty()) {
      return;
    }
    List<String> newcomers = new ArrayList<>();
    for (String key : selected.keySet()) {
      if (!previous.containsKey(key)) {
        newcomers.add(key); // hottest first
      }
    }
    int weakest = newcomers.size() - 1;
    for (PopularityStore.Scored incumbent : incumbentsLeftOut) {
      if (weakest < 0) {
        break;
      }
      String newcomer = newcomers.get(weakest);
      double incumbentRate = decay.rate(incumbent.score(), now, landmark);
      if (selected.get(newcomer) >= incumbentRate * (1 + CAP_HYSTERESIS)) {
        break;
      }
      selected.remove(newcomer);
      selected.put(incumbent.key(), incumbentRate);
      weakest--;
    }
  }

  /** Demoted keys that leave the due index: all but those an operator pinned ({@code always}). */
  private static List<String> stopRefreshing(List<String> demoted, Map<String, Registration> registrations) {
    List<String> leaving = new ArrayList<>();
    for (String key : demoted) {
      Registration registration = registrations.get(key);
      if (registration == null || registration.policy() != RefreshPolicy.ALWAYS) {
        leaving.add(key);
      }
    }
    return leaving;
  }

  /** The keys of a page that a registration or template covers, looking up only what is new. */
  private Set<String> covered(
      List<PopularityStore.Scored> page,
      Map<String, Long> previous,
      Map<String, Registration> previousResolved,
      boolean fullResolve,
      long now) {
    Set<String> covered = new HashSet<>();
    List<String> toLookUp = new ArrayList<>();
    for (PopularityStore.Scored scored : page) {
      String key = scored.key();
      if (previous.containsKey(key)) {
        if (!fullResolve || previousResolved.containsKey(key)) {
          covered.add(key);
        }
        continue;
      }
      Long recheckAt = unresolvedUntil.get(key);
      if (recheckAt == null || recheckAt <= now) {
        toLookUp.add(key);
      }
    }
    if (!toLookUp.isEmpty()) {
      Map<String, Registration> found = lookup.findAll(toLookUp);
      for (String key : toLookUp) {
        if (found.containsKey(key)) {
          covered.add(key);
          unresolvedUntil.remove(key);
        } else {
          unresolvedUntil.put(key, now + UNRESOLVED_RECHECK_MILLIS);
        }
      }
    }
    return covered;
  }

  /** Forgets that keys were uncovered (a registration or template was just added). */
  public synchronized void forgetUnresolved() {
    unresolvedUntil.clear();
  }

  private void logCap(long now, int leftOut) {
    if (leftOut > 0) {
      if (capBitingSince < 0) {
        capBitingSince = now;
        capLoggedAt = now;
        LOG.warn(
            "hot set cap of {} keys reached: {} keys above the threshold are not kept fresh (raise access.maxHotKeys or the threshold)",
            settings.maxHotKeys(),
            leftOut);
      } else if (now - capLoggedAt >= CAP_LOG_EVERY_MILLIS) {
        capLoggedAt = now;
        LOG.warn("hot set cap of {} keys still reached: {} keys left out", settings.maxHotKeys(), leftOut);
      }
    } else if (capBitingSince >= 0) {
      LOG.info("hot set back under its cap of {} keys after {} s", settings.maxHotKeys(), (now - capBitingSince) / 1000);
      capBitingSince = -1;
    }
  }

  private static String sample(List<String> keys) {
    return keys.size() <= 5 ? keys.toString() : keys.subList(0, 5) + "…";
  }
}
