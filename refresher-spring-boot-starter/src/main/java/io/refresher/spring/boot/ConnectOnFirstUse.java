package io.refresher.spring.boot;

import io.refresher.client.driver.CallOutcome;
import io.refresher.client.driver.RedisDriver;
import io.refresher.client.driver.RedisScript;
import io.refresher.client.driver.ScriptCall;
import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;

/**
 * A driver made on its first use, and again on the next use while making it fails: an
 * application starts while Redis is down, as it does without the starter (Spring's connection
 * factories connect lazily, the Lettuce driver and a {@code JedisCluster} do not). Until then
 * every call fails as Redis failing does, so reads fall back to the loader and counts wait.
 */
final class ConnectOnFirstUse implements RedisDriver {

  /** Making the driver failed: Redis or the connection to it, as far as the client is concerned. */
  static final class NotConnectedException extends RuntimeException {
    NotConnectedException(RuntimeException cause) {
      super("no connection to Redis yet: " + cause.getMessage(), cause);
    }
  }

  private final Supplier<RedisDriver> connect;
  private volatile RedisDriver driver;

  ConnectOnFirstUse(Supplier<RedisDriver> connect) {
    this.connect = connect;
  }

  private RedisDriver driver() {
    RedisDriver made = driver;
    if (made != null) {
      return made;
    }
    synchronized (this) {
      if (driver == null) {
        try {
          driver = connect.get();
        } catch (RuntimeException e) {
          throw new NotConnectedException(e);
        }
      }
      return driver;
    }
  }

  @Override
  public String get(String key) {
    return driver().get(key);
  }

  @Override
  public boolean setIfAbsent(String key, String value, Duration lease) {
    return driver().setIfAbsent(key, value, lease);
  }

  @Override
  public boolean delete(String key) {
    return driver().delete(key);
  }

  @Override
  public Object eval(RedisScript script, List<String> keys, List<String> args) {
    return driver().eval(script, keys, args);
  }

  @Override
  public List<CallOutcome> evalPipelined(RedisScript script, List<ScriptCall> calls) {
    RedisDriver made;
    try {
      made = driver();
    } catch (NotConnectedException notSent) {
      return calls.stream().map(call -> CallOutcome.notRun(notSent)).toList();
    }
    return made.evalPipelined(script, calls);
  }

  @Override
  public boolean isRedisFailure(RuntimeException failure) {
    if (failure instanceof NotConnectedException) {
      return true;
    }
    RedisDriver made = driver;
    return made != null && made.isRedisFailure(failure);
  }

  @Override
  public synchronized void close() {
    if (driver != null) {
      driver.close();
    }
  }
}
