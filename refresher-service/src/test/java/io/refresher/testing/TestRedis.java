package io.refresher.testing;

/** A Redis server for one test class. */
public interface TestRedis extends AutoCloseable {

  String url();

  /** Redis loses all its data (an embedded server really restarts, empty, on the same port). */
  void loseData();

  @Override
  void close();
}
