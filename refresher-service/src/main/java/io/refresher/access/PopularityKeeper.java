package io.refresher.access;

import io.refresher.client.protocol.AccessProtocol;
import java.time.Instant;
import java.time.InstantSource;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Saves popularity to PostgreSQL periodically and puts it back into Redis after Redis lost its
 * data, so that the hot set (and the prewarm that follows a loss) starts from what was popular
 * rather than from nothing.
 */
public final class PopularityKeeper {

  private static final Logger LOG = LoggerFactory.getLogger(PopularityKeeper.class);
  /** A row not refreshed for 20 half-lives has decayed below a millionth of its rate: forget it. */
  private static final int FORGET_AFTER_HALF_LIVES = 20;
  private static final int RESTORE_ATTEMPTS = 3;

  private final PopularityStore popularity;
  private final PopularityArchive archive;
  private final AccessSettings settings;
  private final DecayingRate decay;
  private final InstantSource clock;

  public PopularityKeeper(
      PopularityStore popularity, PopularityArchive archive, AccessSettings settings, InstantSource clock) {
    this.popularity = popularity;
    this.archive = archive;
    this.settings = settings;
    this.decay = new DecayingRate(settings.halfLife());
    this.clock = clock;
  }

  /** Saves the {@code snapshotSize} most popular keys with their current rates; returns how many. */
  public int snapshot() {
    long now = clock.millis();
    PopularityStore.State state = popularity.state().orElse(null);
    if (state == null) {
      return 0;
    }
    List<PopularityStore.Scored> top = popularity.descending(0, 0, settings.snapshotSize());
    Map<String, Double> rates = new LinkedHashMap<>();
    for (PopularityStore.Scored scored : top) {
      rates.put(scored.key(), decay.rate(scored.score(), now, state.landmarkMillis()));
    }
    archive.save(
        rates,
        Instant.ofEpochMilli(now),
        Instant.ofEpochMilli(now).minus(settings.halfLife().multipliedBy(FORGET_AFTER_HALF_LIVES)));
    LOG.debug("popularity snapshot: {} keys saved", rates.size());
    return rates.size();
  }

  /**
   * After Redis lost its data: raises each saved key's popularity back to its saved rate, decayed
   * by the time since it was saved as if it had not been read since (a key read since the loss
   * keeps the higher of the two). Returns how many keys were saved.
   */
  public int restore() {
    List<PopularityArchive.Saved> saved = archive.top(settings.maxTracked());
    if (saved.isEmpty()) {
      return 0;
    }
    // The scores are computed against the landmark in force; a sampler rescaling meanwhile moves
    // it, and the store refuses them: computed again. Raising twice is harmless (the higher wins).
    for (int attempt = 1; attempt <= RESTORE_ATTEMPTS; attempt++) {
      long now = clock.millis();
      long lastSecond = Math.floorDiv(now - settings.settle().toMillis(), 1000L) - 1;
      // Counters written since the loss are still read: the cursor starts a bucket lifetime back.
      PopularityStore.State state =
          popularity
              .state()
              .orElseGet(
                  () ->
                      popularity.initialise(
                          new PopularityStore.State(now, lastSecond - AccessProtocol.BUCKET_TTL_SECONDS)));
      Map<String, Double> scores = new HashMap<>(saved.size() * 2);
      for (PopularityArchive.Saved row : saved) {
        // The score the saved rate had when saved is the score it has now, decayed since.
        scores.put(row.key(), decay.score(row.rate(), row.sampledAt().toEpochMilli(), state.landmarkMillis()));
      }
      if (popularity.raise(state.landmarkMillis(), scores)) {
        LOG.info("popularity restored from PostgreSQL after Redis lost its data: {} keys", saved.size());
        return saved.size();
      }
    }
    throw new IllegalStateException(
        "popularity's landmark kept moving while it was restored (" + RESTORE_ATTEMPTS + " attempts)");
  }
}
