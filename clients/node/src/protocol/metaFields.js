/**
 * Field names of the metadata hash beside each value (cacheKeys.metaKey). Times are epoch ms on
 * Redis's clock (TIME), which the service follows too. See docs/protocol.md.
 */
export const MetaFields = Object.freeze({
  /** When the value was computed. */
  COMPUTED_AT: 'computedAt',
  /** How long the computation took, ms: XFetch's delta. */
  DELTA: 'delta',
  /** Logical expiry: XFetch's expiry. */
  EXPIRES_AT: 'expiresAt',
  /** Value size in bytes. */
  SIZE: 'size',
  /** Fence of the service's last write: the data epoch (0 for a value a client wrote). */
  EPOCH: 'epoch',
  /** Fence of the service's last write: the lock token (0 for a value a client wrote). */
  TOKEN: 'token',
  /** The key's most recent compute durations, ms, oldest first. */
  RECENT: 'recent',
  /** When the source last said the value still holds (absent once it is computed again). */
  REVALIDATED_AT: 'revalidatedAt',
  /** The source's validator of the value (ETag, Last-Modified or a version). */
  VALIDATOR: 'validator',
});
