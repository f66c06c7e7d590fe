package io.refresher.access;

import io.refresher.refresh.Heat;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * This replica's copy of the hot set with each key's rate, refreshed every sampling interval: the
 * adaptive TTR reads a key's rate on every refresh, and a Redis call per refresh for it would
 * cost a round trip. Memory is bounded by the hot-set cap.
 */
public final class HotSetView implements Heat {

  /** A hot key as the view last saw it. */
  public record HotKey(String key, double rate, long lastHotAtMillis) {}

  private final HotSetStore hot;
  private final PopularityStore popularity;
  private final DecayingRate decay;
  private final AccessSettings settings;
  private final InstantSource clock;

  private volatile Map<String, HotKey> keys = Map.of();
  private volatile long refreshedAtMillis;

  public HotSetView(
      HotSetStore hot, PopularityStore popularity, AccessSettings settings, InstantSource clock) {
    this.hot = hot;
    this.popularity = popularity;
    this.decay = new DecayingRate(settings.halfLife());
    this.settings = settings;
    this.clock = clock;
  }

  /** Re-reads the hot set and the rates of its keys (two Redis calls). */
  public void refresh() {
    long now = clock.millis();
    Map<String, Long> members = hot.all();
    Map<String, Double> scores = popularity.scores(members.keySet());
    long landmark = popularity.state().map(PopularityStore.State::landmarkMillis).orElse(now);
    Map<String, HotKey> fresh = new HashMap<>(members.size() * 2);
    for (Map.Entry<String, Long> member : members.entrySet()) {
      Double score = scores.get(member.getKey());
      double rate = score == null ? 0 : decay.rate(score, now, landmark);
      fresh.put(member.getKey(), new HotKey(member.getKey(), rate, member.getValue()));
    }
    keys = fresh;
    refreshedAtMillis = now;
  }

  @Override
  public double rateOf(String key) {
    HotKey hotKey = keys.get(key);
    return hotKey == null ? Double.NaN : hotKey.rate();
  }

  @Override
  public double hotThreshold() {
    return settings.hotThreshold();
  }

  public boolean isHot(String key) {
    return keys.containsKey(key);
  }

  public HotKey get(String key) {
    return keys.get(key);
  }

  public int size() {
    return keys.size();
  }

  public long refreshedAtMillis() {
    return refreshedAtMillis;
  }

  /** The {@code limit} hottest keys, hottest first. */
  public List<HotKey> hottest(int limit) {
    List<HotKey> all = new ArrayList<>(keys.values());
    all.sort(Comparator.comparingDouble(HotKey::rate).reversed().thenComparing(HotKey::key));
    return all.subList(0, Math.min(limit, all.size()));
  }
}
