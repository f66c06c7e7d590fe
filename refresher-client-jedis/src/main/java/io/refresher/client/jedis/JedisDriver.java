package io.refresher.client.jedis;

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
import java.util.function.Function;
import java.util.function.Supplier;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Response;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.commands.JedisCommands;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisException;
import redis.clients.jedis.exceptions.JedisNoScriptException;
import redis.clients.jedis.params.SetParams;
import redis.clients.jedis.util.Pool;

/**
 * The client's Redis operations on Jedis (8.x), on the application's {@link UnifiedJedis} (a
 * {@code RedisClient} on a single server, its connection pool; a {@code RedisClusterClient} or
 * {@code JedisCluster} on a Redis Cluster) or on its classic {@code JedisPool} ({@link Pool} of
 * {@link Jedis}, a connection borrowed per call). Keys and values are UTF-8 strings.
 *
 * <p>The flush is one Jedis pipeline ({@link UnifiedJedis#pipelined()}: one connection, or one
 * per node of a cluster), which Jedis sends once: a pipeline is never retried, so a call whose
 * answer was lost (a read timeout, a connection closed) is not sent again, and counts as
 * unconfirmed. Single commands ({@code GET}, the scripts of reads and writes) go through the
 * client's own executor, with its retries on a cluster: those are safe to repeat.
 */
public final class JedisDriver implements RedisDriver {

  /** Where commands run: on the application's client itself, or on a connection of its pool. */
  private interface Connections {
    <T> T run(Function<JedisCommands, T> command);

    /** A pipeline, and what to do once it is closed (give its connection back). */
    PipelineLease pipeline();
  }

  private record PipelineLease(AbstractPipeline pipeline, Runnable release) {}

  private final Connections connections;

  private JedisDriver(Connections connections) {
    this.connections = connections;
  }

  /** A driver on the application's client, which {@link #close()} leaves open. */
  public static JedisDriver of(UnifiedJedis jedis) {
    Objects.requireNonNull(jedis, "jedis");
    return new JedisDriver(
        new Connections() {
          @Override
          public <T> T run(Function<JedisCommands, T> command) {
            return command.apply(jedis);
          }

          @Override
          public PipelineLease pipeline() {
            return new PipelineLease(jedis.pipelined(), () -> {});
          }
        });
  }

  /**
   * A driver on the application's {@code JedisPool} (single server), which {@link #close()}
   * leaves open: each call borrows a connection and gives it back.
   */
  public static JedisDriver of(Pool<Jedis> pool) {
    Objects.requireNonNull(pool, "pool");
    return new JedisDriver(
        new Connections() {
          @Override
          public <T> T run(Function<JedisCommands, T> command) {
            try (Jedis jedis = pool.getResource()) {
              return command.apply(jedis);
            }
          }

          @Override
          public PipelineLease pipeline() {
            Jedis jedis = pool.getResource();
            try {
              return new PipelineLease(jedis.pipelined(), jedis::close);
            } catch (RuntimeException e) {
              jedis.close();
              throw e;
            }
          }
        });
  }

  /** A connection lent for one call or one pipeline, given back by {@link #close()}. */
  public interface JedisLease extends AutoCloseable {
    Jedis jedis();

    @Override
    void close();
  }

  /**
   * A driver on connections the application lends from a pool of its own (Spring's {@code
   * JedisConnectionFactory}, say), which {@link #close()} leaves open: each call borrows one
   * lease and gives it back. {@code lender} throws a {@link JedisException} when it has no
   * connection to lend.
   */
  public static JedisDriver lending(Supplier<JedisLease> lender) {
    Objects.requireNonNull(lender, "lender");
    return new JedisDriver(
        new Connections() {
          @Override
          public <T> T run(Function<JedisCommands, T> command) {
            try (JedisLease lease = lender.get()) {
              return command.apply(lease.jedis());
            }
          }

          @Override
          public PipelineLease pipeline() {
            JedisLease lease = lender.get();
            try {
              return new PipelineLease(lease.jedis().pipelined(), lease::close);
            } catch (RuntimeException e) {
              lease.close();
              throw e;
            }
          }
        });
  }

  @Override
  public String get(String key) {
    return connections.run(jedis -> jedis.get(key));
  }

  @Override
  public boolean setIfAbsent(String key, String value, Duration lease) {
    return "OK".equals(connections.run(jedis -> jedis.set(key, value, SetParams.setParams().nx().px(lease.toMillis()))));
  }

  @Override
  public boolean delete(String key) {
    return connections.run(commands -> commands.del(key)) > 0;
  }

  @Override
  public Object eval(RedisScript script, List<String> keys, List<String> args) {
    return connections.run(
        jedis -> {
          try {
            return jedis.evalsha(script.sha1(), keys, args);
          } catch (JedisNoScriptException e) {
            return jedis.eval(script.text(), keys, args);
          }
        });
  }

  @Override
  public List<CallOutcome> evalPipelined(RedisScript script, List<ScriptCall> calls) {
    return ScriptPipelines.run(calls, (batch, bySha) -> send(script, batch, bySha));
  }

  @Override
  public boolean isRedisFailure(RuntimeException failure) {
    return failure instanceof JedisException;
  }

  /** Nothing of its own to close: the client or pool is the application's. */
  @Override
  public void close() {}

  private List<CallOutcome> send(RedisScript script, List<ScriptCall> calls, boolean bySha) {
    List<CallOutcome> outcomes = new ArrayList<>(calls.size());
    PipelineLease lease;
    try {
      lease = connections.pipeline();
    } catch (RuntimeException noConnection) {
      // No connection to send anything on.
      calls.forEach(call -> outcomes.add(CallOutcome.notRun(noConnection)));
      return outcomes;
    }
    AbstractPipeline pipeline = lease.pipeline();
    List<Response<Object>> responses = new ArrayList<>(calls.size());
    RuntimeException failure = null;
    try {
      for (ScriptCall call : calls) {
        responses.add(
            bySha
                ? pipeline.evalsha(script.sha1(), call.keys(), call.args())
                : pipeline.eval(script.text(), call.keys(), call.args()));
      }
      pipeline.sync();
    } catch (RuntimeException e) {
      failure = e;
    } finally {
      closeQuietly(pipeline);
      releaseQuietly(lease);
    }
    for (int i = 0; i < calls.size(); i++) {
      outcomes.add(i < responses.size() ? outcomeOf(responses.get(i), failure) : CallOutcome.notRun(failure));
    }
    return outcomes;
  }

  private static CallOutcome outcomeOf(Response<Object> response, RuntimeException pipelineFailure) {
    try {
      response.get();
      return CallOutcome.done();
    } catch (JedisDataException errorReply) {
      return ErrorReplies.refusedWithoutRunning(errorReply.getMessage())
          ? CallOutcome.notRun(errorReply)
          : CallOutcome.unknown(errorReply);
    } catch (RuntimeException noAnswer) {
      // Queued, maybe written, never answered: the pipeline's failure says why.
      return CallOutcome.unknown(pipelineFailure != null ? pipelineFailure : noAnswer);
    }
  }

  /** A pool refuses a broken connection back ("Could not return the broken resource"): it is gone anyway. */
  private static void releaseQuietly(PipelineLease lease) {
    try {
      lease.release().run();
    } catch (RuntimeException brokenConnection) {
      // The pool destroys it; the outcomes already say what became of the calls.
    }
  }

  private static void closeQuietly(AbstractPipeline pipeline) {
    try {
      pipeline.close();
    } catch (RuntimeException alreadyBroken) {
      // The connection failed; the pool replaces it.
    }
  }
}
