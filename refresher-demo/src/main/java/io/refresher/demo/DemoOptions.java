package io.refresher.demo;

/**
 * @param seconds how long to run; 0 runs until the process is stopped
 * @param logFeed with {@code --changes}: changes come from the write-ahead log (change capture), not {@code NOTIFY}
 * @param readers reader threads
 * @param rate reads per second, all readers together
 */
record DemoOptions(int seconds, int readers, int rate, boolean logFeed) {

  DemoOptions(int seconds, int readers, int rate) {
    this(seconds, readers, rate, false);
  }
}
