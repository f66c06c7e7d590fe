package io.refresher.client;

/**
 * What {@link RefresherClient#get(String, java.time.Duration, Loader)} does with what it read:
 * the value and its metadata, with Redis's time. The same for every client (protocol/vectors).
 */
enum ReadDecision {
  /** Return the stored value. */
  SERVE,
  /** A client's value that XFetch says to recompute now: one caller does, the others are served. */
  RECOMPUTE_EARLY,
  /** A value of the service's past its logical expiry (it stopped refreshing it): one caller recomputes. */
  RECOMPUTE_EXPIRED,
  /** No value: load it, once across threads and processes. */
  LOAD,
  /**
   * The service's not-found marker ({@link io.refresher.client.protocol.NotFoundMarker}), before its
   * expiry: the key is known to have no value. Return none; load nothing.
   */
  ABSENT;

  /** The XFetch test, on Redis's time in ms. */
  @FunctionalInterface
  interface EarlyTest {
    boolean shouldRecompute(long nowMillis, long deltaMillis, long expiresAtMillis);
  }

  static ReadDecision of(StoredValue stored, EarlyTest early) {
    if (!stored.present()) {
      return LOAD;
    }
    // Redis's clock, not ours: expiresAt is on it, and ours may be seconds off.
    long now = stored.readAtMillis();
    if (io.refresher.client.protocol.NotFoundMarker.is(stored.value())
        && (stored.expiresAtMillis() == null || now < stored.expiresAtMillis())) {
      return ABSENT;
    }
    if (stored.writtenByService()) {
      // The service recomputes its keys before expiry; only a value it gave up on is ours to redo.
      if (stored.expiresAtMillis() == null || now < stored.expiresAtMillis()) {
        return SERVE;
      }
      return RECOMPUTE_EXPIRED;
    }
    if (stored.hasTiming() && early.shouldRecompute(now, stored.deltaMillis(), stored.expiresAtMillis())) {
      return RECOMPUTE_EARLY;
    }
    return SERVE;
  }
}
