package io.refresher.client;

/**
 * A key's value and the metadata fields early recomputation needs, read in one round trip with
 * Redis's time ({@code readAtMillis}, epoch ms), which {@code expiresAt} is compared with. The
 * numbers are null when the field is absent or unreadable.
 */
record StoredValue(String value, Long deltaMillis, Long expiresAtMillis, long epoch, long readAtMillis) {

  boolean present() {
    return value != null;
  }

  /** Written (and kept fresh) by the Refresher service, whose writes carry an epoch of 1 or more. */
  boolean writtenByService() {
    return epoch > 0;
  }

  boolean hasTiming() {
    return deltaMillis != null && expiresAtMillis != null;
  }
}
