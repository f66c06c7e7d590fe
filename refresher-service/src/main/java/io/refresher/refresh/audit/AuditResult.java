package io.refresher.refresh.audit;

/**
 * One concluded sample.
 *
 * @param template the key's template; null for a key registered by itself
 * @param mismatchAgeMillis for a mismatch: how long the served value had gone without its source
 *     agreeing with it, from when it was last computed or revalidated; 0 otherwise
 * @param expectedDigest digest of the source's value ({@link ValueDigest}); null unless a mismatch
 * @param servedDigest digest of the value Redis served; null unless a mismatch
 */
public record AuditResult(
    String key,
    String source,
    String template,
    Verdict verdict,
    long mismatchAgeMillis,
    String expectedDigest,
    String servedDigest,
    long atMillis) {}
