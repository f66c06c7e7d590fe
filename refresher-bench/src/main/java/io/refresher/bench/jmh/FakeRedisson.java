package io.refresher.bench.jmh;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Proxy;
import org.redisson.api.RBatch;
import org.redisson.api.RScript;
import org.redisson.api.RScriptAsync;
import org.redisson.api.RedissonClient;
import org.redisson.misc.CompletableFutureWrapper;

/**
 * A {@link RedissonClient} without a server, so that a benchmark measures only our Java side of a
 * call: every script ({@code eval}, {@code evalAsync}) returns the same reply at once, and the
 * access counter's pipelined flush ({@code createBatch}, {@code evalAsync}, {@code execute})
 * succeeds at once. Anything else throws, so a
 * benchmark that strays onto another path (a lock, a {@code GET}) fails instead of measuring it.
 *
 * <p>What it leaves out is Redisson's own work: encoding the arguments, the command objects, Netty,
 * decoding the reply into fresh objects. Its own cost (two proxy calls) is measured by {@link
 * ClientBenchmark#fakeEvalOnly}.
 */
final class FakeRedisson {

  private FakeRedisson() {}

  /** A client whose every script returns {@code reply} (a {@code List} for MULTI, a {@code Long} for INTEGER). */
  static RedissonClient replying(Object reply) {
    RScript script = proxy(RScript.class, (self, method, args) -> switch (method.getName()) {
      case "eval" -> reply;
      // The service's batched scripts (BatchedScript) call evalAsync: answered, already complete.
      case "evalAsync" -> new CompletableFutureWrapper<>(reply);
      default -> unsupported(self, method.getName(), args);
    });
    RScriptAsync batchScript = proxy(RScriptAsync.class, (self, method, args) -> {
      if (method.getName().equals("evalAsync")) {
        return new CompletableFutureWrapper<>((Object) 1L);
      }
      return unsupported(self, method.getName(), args);
    });
    RBatch batch = proxy(RBatch.class, (self, method, args) -> switch (method.getName()) {
      case "getScript" -> batchScript;
      case "execute" -> null;
      default -> unsupported(self, method.getName(), args);
    });
    return proxy(RedissonClient.class, (self, method, args) -> switch (method.getName()) {
      case "getScript" -> script;
      case "createBatch" -> batch;
      case "shutdown" -> null;
      case "isShutdown", "isShuttingDown" -> false;
      default -> unsupported(self, method.getName(), args);
    });
  }

  private static <T> T proxy(Class<T> type, InvocationHandler handler) {
    return type.cast(Proxy.newProxyInstance(FakeRedisson.class.getClassLoader(), new Class<?>[] {type}, handler));
  }

  private static Object unsupported(Object self, String method, Object[] args) {
    return switch (method) {
      case "toString" -> "FakeRedisson";
      case "hashCode" -> System.identityHashCode(self);
      case "equals" -> self == args[0];
      default -> throw new UnsupportedOperationException("FakeRedisson does not do " + method);
    };
  }
}
