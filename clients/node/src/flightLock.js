/**
 * The cross-process single-flight lock of a key: SET refresher:flight:{…} <random token> NX PX
 * lease, released by the compare-and-delete script RELEASE. The same name, layout and script as
 * the Java client's FlightLock, so Java and Node callers of one key exclude each other. The lease
 * bounds how long a holder that died keeps others waiting.
 */
import { randomUUID } from 'node:crypto';
import { flightLockName } from './protocol/cacheKeys.js';
import { RELEASE } from './scripts.js';

export class FlightLock {
  constructor(driver, leaseMs) {
    this.driver = driver;
    this.leaseMs = leaseMs;
  }

  /** The token of the lock just taken, or null when someone holds it. Does not wait. */
  async tryAcquire(key) {
    const token = randomUUID();
    const lock = flightLockName(key);
    // A lock holding this call's own token is this call's: a library that re-sent a late SET NX
    // finds the first send's lock (the Java client does the same).
    const acquired = (await this.driver.setIfAbsent(lock, token, this.leaseMs)) || token === (await this.driver.get(lock));
    return acquired ? token : null;
  }

  async release(key, token) {
    await this.driver.eval(RELEASE, [flightLockName(key)], [token]);
  }
}
