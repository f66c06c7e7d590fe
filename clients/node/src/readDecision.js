import { isNotFound } from './protocol/notFound.js';

/**
 * What get(key, {ttlMs, loader}) does with what it read, the same in every client
 * (protocol/vectors/read-decisions.json).
 */
export const ReadDecision = Object.freeze({
  /** Return the stored value. */
  SERVE: 'SERVE',
  /** A client's value XFetch says to recompute now: one caller does, the others are served. */
  RECOMPUTE_EARLY: 'RECOMPUTE_EARLY',
  /** A value of the service's past its logical expiry (it stopped refreshing it): one caller recomputes. */
  RECOMPUTE_EXPIRED: 'RECOMPUTE_EXPIRED',
  /** No value: load it, once across callers and processes. */
  LOAD: 'LOAD',
  /** The service's not-found marker before its expiry: the key is known to have no value. Return null; load nothing. */
  ABSENT: 'ABSENT',
});

/**
 * @param {import('./storedValue.js').StoredValue} stored
 * @param {(now: number, delta: number, expiresAt: number) => boolean} shouldRecompute XFetch's test
 */
export function decide(stored, shouldRecompute) {
  if (!stored.present()) {
    return ReadDecision.LOAD;
  }
  // Redis's clock, not ours: expiresAt is on it, and ours may be seconds off.
  const now = stored.readAtMillis;
  if (isNotFound(stored.value) && (stored.expiresAtMillis === null || now < stored.expiresAtMillis)) {
    return ReadDecision.ABSENT;
  }
  if (stored.writtenByService()) {
    // The service recomputes its keys before expiry; only a value it gave up on is ours to redo.
    if (stored.expiresAtMillis === null || now < stored.expiresAtMillis) {
      return ReadDecision.SERVE;
    }
    return ReadDecision.RECOMPUTE_EXPIRED;
  }
  if (stored.hasTiming() && shouldRecompute(now, stored.deltaMillis, stored.expiresAtMillis)) {
    return ReadDecision.RECOMPUTE_EARLY;
  }
  return ReadDecision.SERVE;
}
