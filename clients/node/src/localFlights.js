/**
 * The in-process half of single flight: concurrent callers for the same key share one promise,
 * so that one caller per process works on a key and the others await its result.
 */
export class LocalFlights {
  constructor() {
    /** @type {Map<string, Promise<string|null>>} */
    this.inFlight = new Map();
  }

  /**
   * The key's flight in progress, or a new one running work(). The flight leaves the map when it
   * settles, so later callers start afresh.
   * @param {string} key
   * @param {() => Promise<string|null>} work
   * @returns {{promise: Promise<string|null>, leader: boolean}}
   */
  join(key, work) {
    const existing = this.inFlight.get(key);
    if (existing !== undefined) {
      return { promise: existing, leader: false };
    }
    // The flight is in the map before work starts, so nothing work does can start a second one.
    let start;
    const promise = new Promise((resolve) => {
      start = resolve;
    }).then(() => work());
    this.inFlight.set(key, promise);
    start();
    const leave = () => {
      if (this.inFlight.get(key) === promise) {
        this.inFlight.delete(key);
      }
    };
    promise.then(leave, leave);
    return { promise, leader: true };
  }
}
