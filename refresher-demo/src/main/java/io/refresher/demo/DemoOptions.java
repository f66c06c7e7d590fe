package io.refresher.demo;

/**
 * @param seconds how long to run; 0 runs until the process is stopped
 * @param readers reader threads
 * @param rate reads per second, all readers together
 */
record DemoOptions(int seconds, int readers, int rate) {}
