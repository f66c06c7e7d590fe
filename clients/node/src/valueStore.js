/**
 * A key's value and its metadata hash (cacheKeys.metaKey, same cluster slot), read and written
 * the way the Refresher service and the Java client do: plain strings, one script per operation.
 */
import { metaKey } from './protocol/cacheKeys.js';
import { READ, WRITE } from './scripts.js';
import { StoredValue } from './storedValue.js';
import { text } from './driver/nodeRedisDriver.js';

export class ValueStore {
  /** @param {import('./driver/nodeRedisDriver.js').NodeRedisDriver} driver */
  constructor(driver) {
    this.driver = driver;
  }

  /** GET key; null when absent. */
  get(key) {
    return this.driver.get(key);
  }

  /** The value, delta, expiresAt and epoch, with Redis's time, in one round trip. */
  async read(key) {
    const reply = await this.driver.eval(READ, [key, metaKey(key)], []);
    const fields = Array.isArray(reply) ? reply : [];
    return new StoredValue(
      field(fields, 0),
      number(fields, 1),
      number(fields, 2),
      number(fields, 3) ?? 0,
      number(fields, 4) ?? 0,
    );
  }

  /**
   * Writes a loaded value by the write rule: whether it was written (false: refused, a fresh
   * value of the service's is there).
   * @param {string} key
   * @param {{value: string, ttlMillis: number, deltaMillis: number}} written
   */
  async write(key, { value, ttlMillis, deltaMillis }) {
    const reply = await this.driver.eval(WRITE, [key, metaKey(key)], [value, String(ttlMillis), String(deltaMillis)]);
    return Number(reply) === 1;
  }
}

function field(reply, index) {
  return index < reply.length ? text(reply[index]) : null;
}

/** Metadata someone garbled is treated as absent: it must not break reads. */
function number(reply, index) {
  const t = field(reply, index);
  if (t === null || !/^\s*[+-]?\d+\s*$/.test(t)) {
    return null;
  }
  return Number(t.trim());
}
