package io.refresher.refresh;

/** The current data epoch of Redis: it grows every time Redis is found to have lost its data. */
public interface EpochSource {
  long currentEpoch();
}
