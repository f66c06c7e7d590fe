package io.refresher.client.redisson;

import io.refresher.client.driver.CallOutcome;
import io.refresher.client.driver.ErrorReplies;
import io.refresher.client.driver.RedisDriver;
import io.refresher.client.driver.RedisScript;
import io.refresher.client.driver.ScriptCall;
import io.refresher.client.driver.ScriptPipelines;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.redisson.api.BatchOptions;
import org.redisson.api.RBatch;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.redisson.client.RedisAuthRequiredException;
import org.redisson.client.RedisBusyException;
import org.redisson.client.RedisClusterDownException;
import org.redisson.client.RedisConnectionException;
import org.redisson.client.RedisException;
import org.redisson.client.RedisLoadingException;
import org.redisson.client.RedisMasterDownException;
import org.redisson.client.RedisOutOfMemoryException;
import org.redisson.client.RedisReadonlyException;
import org.redisson.client.RedisResponseTimeoutException;
import org.redisson.client.RedisTimeoutException;
import org.redisson.client.RedisTryAgainException;
import org.redisson.client.RedisWrongPasswordException;
import org.redisson.client.codec.StringCodec;

/**
 * The client's Redis operations on Redisson: single server, Cluster, Sentinel, as the given
 * {@link RedissonClient} is configured. Values are plain strings ({@link StringCodec}), whatever
 * codec the client has by default.
 *
 * <p>The protocol says {@code HINCRBY}; Redisson's {@code RMap.addAndGet} sends {@code
 * HINCRBYFLOAT}, whose float field values the service would have to parse differently: hence the
 * counts go through the core's script. Pipelines are {@link RBatch}es whose own {@code
 * retryAttempts} is 0, so that Redisson never re-sends a call whose answer timed out.
 */
public final class RedissonDriver implements RedisDriver {

  private final RedissonClient redisson;
  private final boolean ownsClient;

  private RedissonDriver(RedissonClient redisson, boolean ownsClient) {
    this.redisson = Objects.requireNonNull(redisson, "redisson");
    this.ownsClient = ownsClient;
  }

  /** A driver on the application's client, which {@link #close()} leaves running. */
  public static RedissonDriver of(RedissonClient redisson) {
    return new RedissonDriver(redisson, false);
  }

  /** A driver on a client of its own, which {@link #close()} shuts down. */
  static RedissonDriver owning(RedissonClient redisson) {
    return new RedissonDriver(redisson, true);
  }

  @Override
  public String get(String key) {
    return redisson.<String>getBucket(key, StringCodec.INSTANCE).get();
  }

  @Override
  public boolean setIfAbsent(String key, String value, Duration lease) {
    return redisson.<String>getBucket(key, StringCodec.INSTANCE).setIfAbsent(value, lease);
  }

  @Override
  public boolean delete(String key) {
    return redisson.getBucket(key, StringCodec.INSTANCE).delete();
  }

  @Override
  public Object eval(RedisScript script, List<String> keys, List<String> args) {
    // Redisson sends the text (EVAL), or EVALSHA when the client's useScriptCache is set.
    Object reply =
        redisson
            .getScript(StringCodec.INSTANCE)
            .eval(
                keys.get(0),
                mode(script),
                script.text(),
                returnType(script),
                List.<Object>copyOf(keys),
                args.toArray());
    return normalized(reply);
  }

  /**
   * Redisson sends a batch's scripts by SHA-1 when its script cache is on (the default): a node
   * without the script (restarted, promoted, flushed) answers NOSCRIPT, and those calls, which did
   * not run, go again once the script is loaded.
   */
  @Override
  public List<CallOutcome> evalPipelined(RedisScript script, List<ScriptCall> calls) {
    return ScriptPipelines.run(
        calls,
        (batch, bySha) -> {
          if (!bySha) {
            redisson.getScript(StringCodec.INSTANCE).scriptLoad(script.text());
          }
          return send(script, batch);
        });
  }

  private List<CallOutcome> send(RedisScript script, List<ScriptCall> calls) {
    List<CompletableFuture<Object>> futures = new ArrayList<>(calls.size());
    RuntimeException batchError = null;
    try {
      RBatch batch = redisson.createBatch(BatchOptions.defaults().retryAttempts(0));
      for (ScriptCall call : calls) {
        futures.add(
            batch
                .getScript(StringCodec.INSTANCE)
                .evalAsync(
                    call.keys().get(0),
                    mode(script),
                    script.text(),
                    returnType(script),
                    List.<Object>copyOf(call.keys()),
                    call.args().toArray())
                .toCompletableFuture());
      }
      batch.execute();
    } catch (RuntimeException e) {
      batchError = e;
    }
    List<CallOutcome> outcomes = new ArrayList<>(calls.size());
    for (int i = 0; i < calls.size(); i++) {
      outcomes.add(outcomeOf(i < futures.size() ? futures.get(i) : null, batchError));
    }
    return outcomes;
  }

  @Override
  public boolean isRedisFailure(RuntimeException failure) {
    return failure instanceof RedisException;
  }

  @Override
  public void close() {
    if (ownsClient) {
      redisson.shutdown(0, 5, TimeUnit.SECONDS);
    }
  }

  /** What became of one call, from its future or, when that never completed, the batch's error. */
  private static CallOutcome outcomeOf(CompletableFuture<Object> call, RuntimeException batchError) {
    if (call == null) {
      // The batch failed while it was being built: this call was never queued.
      return CallOutcome.notRun(batchError);
    }
    if (call.isDone()) {
      Throwable failure = failureOf(call);
      if (failure == null) {
        return CallOutcome.done();
      }
      return surelyNotRun(failure) ? CallOutcome.notRun(failure) : CallOutcome.unknown(failure);
    }
    return batchError != null && surelyNotRun(batchError)
        ? CallOutcome.notRun(batchError)
        : CallOutcome.unknown(batchError);
  }

  private static Throwable failureOf(CompletableFuture<Object> done) {
    try {
      done.join();
      return null;
    } catch (CompletionException e) {
      return e.getCause() == null ? e : e.getCause();
    } catch (CancellationException e) {
      return e;
    }
  }

  /**
   * Failures after which Redis did not run the call: no connection; never written to one
   * (Redisson's "still hasn't been written" timeout, unlike a response timeout); or an error
   * reply, which Redis gives instead of running a script that would write (OOM, READONLY,
   * LOADING, BUSY, cluster down, TRYAGAIN, MASTERDOWN, authentication, and the others of {@link
   * ErrorReplies}).
   */
  static boolean surelyNotRun(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof RedisResponseTimeoutException) {
        return false;
      }
      if (t instanceof RedisException && ErrorReplies.refusedWithoutRunning(t.getMessage())) {
        return true;
      }
      if (t instanceof RedisConnectionException
          || t instanceof RedisTimeoutException
          || t instanceof RedisOutOfMemoryException
          || t instanceof RedisReadonlyException
          || t instanceof RedisLoadingException
          || t instanceof RedisBusyException
          || t instanceof RedisClusterDownException
          || t instanceof RedisTryAgainException
          || t instanceof RedisMasterDownException
          || t instanceof RedisAuthRequiredException
          || t instanceof RedisWrongPasswordException) {
        return true;
      }
    }
    return false;
  }

  private static RScript.Mode mode(RedisScript script) {
    return script.readOnly() ? RScript.Mode.READ_ONLY : RScript.Mode.READ_WRITE;
  }

  private static RScript.ReturnType returnType(RedisScript script) {
    return script.reply() == RedisScript.Reply.LIST ? RScript.ReturnType.MULTI : RScript.ReturnType.INTEGER;
  }

  /** Integers as Long, arrays as lists: what {@link RedisDriver#eval} promises. */
  private static Object normalized(Object reply) {
    if (reply instanceof Number number) {
      return number.longValue();
    }
    return reply;
  }
}
