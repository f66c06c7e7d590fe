package io.refresher.testing;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.concurrent.atomic.AtomicInteger;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.redisson.client.RedisTimeoutException;

/**
 * A Redisson client whose Lua script calls a test can interfere with at a chosen moment: hold one
 * back (a slow replica, so that two samplers overlap exactly where the test wants them to), or lose
 * its reply after Redis ran it (a timeout, a dropped connection). Everything reaches a real Redis;
 * only the moment and the client's view of the outcome are the test's.
 */
public final class ScriptInterference {

  /** Called around every script call with the script's source. */
  public interface Hook {

    /** Before the script is sent; may block (hold it back) or throw (the request is lost). */
    default void before(String script) {}

    /** After Redis ran it; may throw (the reply is lost: the script ran, the caller sees a failure). */
    default void after(String script) {}
  }

  private ScriptInterference() {}

  /**
   * {@code client}, whose {@code nth} script containing {@code command} runs in Redis but whose
   * reply is lost (a {@link RedisTimeoutException}): the caller fails after the write was made.
   */
  public static RedissonClient replyLostAt(RedissonClient client, String command, int nth) {
    AtomicInteger calls = new AtomicInteger();
    return around(
        client,
        new Hook() {
          @Override
          public void after(String script) {
            if (script.contains(command) && calls.incrementAndGet() == nth) {
              throw new RedisTimeoutException("injected: the reply of script call " + nth + " with " + command + " was lost");
            }
          }
        });
  }

  /** {@code client}, with {@code hook} around each script it evaluates. */
  public static RedissonClient around(RedissonClient client, Hook hook) {
    return proxy(RedissonClient.class, client, (target, method, args) -> {
      Object result = invoke(target, method, args);
      return result instanceof RScript script && method.getName().equals("getScript")
          ? proxy(RScript.class, script, scriptHandler(script, hook))
          : result;
    });
  }

  private static Handler scriptHandler(RScript script, Hook hook) {
    return (target, method, args) -> {
      String source = method.getName().startsWith("eval") ? sourceOf(args) : null;
      if (source == null) {
        return invoke(script, method, args);
      }
      hook.before(source);
      Object result = invoke(script, method, args);
      hook.after(source);
      return result;
    };
  }

  /** The Lua source among a call's arguments: the string argument that calls Redis. */
  private static String sourceOf(Object[] args) {
    if (args != null) {
      for (Object arg : args) {
        if (arg instanceof String text && text.contains("redis.call")) {
          return text;
        }
      }
    }
    return null;
  }

  private interface Handler {
    Object handle(Object target, Method method, Object[] args) throws Throwable;
  }

  @SuppressWarnings("unchecked")
  private static <T> T proxy(Class<T> type, T target, Handler handler) {
    return (T)
        Proxy.newProxyInstance(
            type.getClassLoader(), new Class<?>[] {type}, (proxy, method, args) -> handler.handle(target, method, args));
  }

  private static Object invoke(Object target, Method method, Object[] args) throws Throwable {
    try {
      return method.invoke(target, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }
}
