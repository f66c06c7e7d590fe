/**
 * Read counts per key that have not reached Redis yet, never more than maxKeys keys.
 *
 * Node runs this on one thread, so the exactness Java's PendingCounts buys with atomics comes
 * free: add() and drain() never interleave. A drain takes the whole map and starts a new one, so
 * every read is in exactly one drain.
 */
export class PendingCounts {
  constructor(maxKeys) {
    if (!Number.isInteger(maxKeys) || maxKeys < 1) {
      throw new RangeError(`maxKeys must be an integer of at least 1, was ${maxKeys}`);
    }
    this.maxKeys = maxKeys;
    /** @type {Map<string, number>} */
    this.counts = new Map();
  }

  /** Adds count reads of key; false, changing nothing, when key is new and all slots are taken. */
  add(key, count) {
    const current = this.counts.get(key);
    if (current !== undefined) {
      this.counts.set(key, current + count);
      return true;
    }
    if (this.counts.size >= this.maxKeys) {
      return false;
    }
    this.counts.set(key, count);
    return true;
  }

  /** Takes every pending count out. @returns {Map<string, number>} */
  drain() {
    const drained = this.counts;
    this.counts = new Map();
    return drained;
  }

  pendingKeys() {
    return this.counts.size;
  }
}
