package io.refresher.refresh;

import io.refresher.source.SourceException;

/**
 * One key's part of a batch query's answer: its value, or its own failure (its row could not be
 * read, or there was none and its source has no not-found rule). One key's failure never fails the
 * others of the batch.
 */
public record BatchItem(Loaded.Value value, SourceException failure) {

  public static BatchItem of(Loaded.Value value) {
    return new BatchItem(value, null);
  }

  public static BatchItem failed(SourceException failure) {
    return new BatchItem(null, failure);
  }
}
