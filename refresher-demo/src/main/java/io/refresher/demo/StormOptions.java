package io.refresher.demo;

/**
 * The storm demo's options ({@code demo --storm}).
 *
 * @param seconds at most this long in all (0: until the refill is done)
 * @param readers reader threads
 * @param rate reads per second, all readers together
 * @param keys product keys the readers read, with Zipf popularity (product:1 the most read)
 * @param bound the database's load bound, {@code database.maxQueriesPerSecond}
 * @param lossAt seconds of reading before Redis is killed and started again empty
 */
record StormOptions(int seconds, int readers, int rate, int keys, int bound, int lossAt) {}
