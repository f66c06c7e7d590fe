/**
 * A key's value and the metadata fields early recomputation needs, read in one round trip with
 * Redis's time (readAtMillis, epoch ms), which expiresAt is compared with. deltaMillis and
 * expiresAtMillis are null when the field is absent or unreadable; an absent epoch is 0.
 */
export class StoredValue {
  /**
   * @param {string|null} value
   * @param {number|null} deltaMillis
   * @param {number|null} expiresAtMillis
   * @param {number} epoch
   * @param {number} readAtMillis
   */
  constructor(value, deltaMillis, expiresAtMillis, epoch, readAtMillis) {
    this.value = value;
    this.deltaMillis = deltaMillis;
    this.expiresAtMillis = expiresAtMillis;
    this.epoch = epoch;
    this.readAtMillis = readAtMillis;
  }

  present() {
    return this.value !== null && this.value !== undefined;
  }

  /** Written (and kept fresh) by the Refresher service, whose writes carry an epoch of 1 or more. */
  writtenByService() {
    return this.epoch > 0;
  }

  hasTiming() {
    return this.deltaMillis !== null && this.expiresAtMillis !== null;
  }
}
