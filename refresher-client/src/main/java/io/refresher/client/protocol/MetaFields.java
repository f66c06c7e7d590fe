package io.refresher.client.protocol;

/**
 * Field names of the metadata hash kept beside each value ({@link CacheKeys#metaKey}); the service
 * writes them on every refresh and the client library reads them for early recomputation. Times
 * are epoch ms on Redis's clock ({@code TIME}), which the service follows too. See {@code
 * docs/protocol.md}.
 */
public final class MetaFields {

  /** When the value was computed, epoch ms. */
  public static final String COMPUTED_AT = "computedAt";
  /** How long the computation took, ms: XFetch's {@code delta}. */
  public static final String DELTA = "delta";
  /** Logical expiry, epoch ms: XFetch's {@code expiry}. */
  public static final String EXPIRES_AT = "expiresAt";
  /** Value size in bytes. */
  public static final String SIZE = "size";
  /** The fence of the last write by the service: Redis data epoch (0 for a value a client wrote). */
  public static final String EPOCH = "epoch";
  /** The fence of the last write by the service: lock token (0 for a value a client wrote). */
  public static final String TOKEN = "token";
  /** The key's most recent compute durations, ms, oldest first, comma-separated. */
  public static final String RECENT = "recent";
  /**
   * When the source last said the value still holds (HTTP {@code 304}, an unchanged version), epoch
   * ms; absent when the value was computed since. The value's TTL and {@code expiresAt} were
   * extended then, while {@code computedAt} and {@code delta} stay those of its computation.
   */
  public static final String REVALIDATED_AT = "revalidatedAt";
  /** The source's validator for the value ({@code ETag}, {@code Last-Modified} or a version). */
  public static final String VALIDATOR = "validator";

  private MetaFields() {}
}
