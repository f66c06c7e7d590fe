package io.refresher.client.lettuce;

import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.CommandOutput;
import io.lettuce.core.output.IntegerOutput;
import io.lettuce.core.output.NestedMultiOutput;
import io.lettuce.core.protocol.AsyncCommand;
import io.lettuce.core.protocol.Command;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import io.refresher.client.driver.CallOutcome;
import io.refresher.client.driver.ErrorReplies;
import io.refresher.client.driver.RedisDriver;
import io.refresher.client.driver.RedisScript;
import io.refresher.client.driver.ScriptCall;
import io.refresher.client.driver.ScriptPipelines;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The client's Redis operations on Lettuce (7.x), over one thread-safe connection: a single
 * server ({@link RedisClient}, {@link StatefulRedisConnection}) or a Redis Cluster ({@link
 * RedisClusterClient}), keys and values as UTF-8 strings.
 *
 * <p>Pipelining is Lettuce's own: the flush's calls are issued asynchronously one after another on
 * the connection, without waiting for each answer, then awaited together.
 *
 * <p>Sent at most once. Lettuce is at-least-once by default: a command written before a connection
 * dropped, still unanswered, is written again after the reconnect, and Redis may have run it the
 * first time. The driver therefore fails its own unanswered flush calls the moment the connection
 * drops (a command that is done is never written again), and they count as unconfirmed.
 */
public final class LettuceDriver implements RedisDriver {

  private final StatefulConnection<String, String> connection;
  private final RedisClusterCommands<String, String> sync;
  private final RedisClusterAsyncCommands<String, String> async;
  private final boolean ownsConnection;
  private final Set<CompletableFuture<?>> unanswered = ConcurrentHashMap.newKeySet();
  private volatile Runnable stopListening = () -> {};

  private LettuceDriver(
      StatefulConnection<String, String> connection,
      RedisClusterCommands<String, String> sync,
      RedisClusterAsyncCommands<String, String> async,
      boolean ownsConnection) {
    this.connection = connection;
    this.sync = sync;
    this.async = async;
    this.ownsConnection = ownsConnection;
  }

  /** A driver on a connection of its own, opened from the application's client; closed with it. */
  public static LettuceDriver of(RedisClient client) {
    StatefulRedisConnection<String, String> own = Objects.requireNonNull(client, "client").connect(StringCodec.UTF8);
    return guardedByConnection(new LettuceDriver(own, own.sync(), own.async(), true), own);
  }

  /**
   * A driver on a cluster connection of its own, opened from the application's cluster client;
   * closed with it. The cluster's commands travel on node connections that Lettuce opens and
   * replaces by itself, so the guard listens to the client's events: any of its connections
   * dropping fails this driver's unanswered flush calls (some may then count as unconfirmed that
   * were not on that node).
   */
  public static LettuceDriver of(RedisClusterClient client) {
    Objects.requireNonNull(client, "client");
    StatefulRedisClusterConnection<String, String> own = client.connect(StringCodec.UTF8);
    LettuceDriver driver = new LettuceDriver(own, own.sync(), own.async(), true);
    RedisConnectionStateListener guard = driver.new FailUnansweredOnDisconnect();
    client.addListener(guard);
    driver.stopListening = () -> client.removeListener(guard);
    return driver;
  }

  /** A driver on the application's single-server connection, which {@link #close()} leaves open. */
  public static LettuceDriver of(StatefulRedisConnection<String, String> connection) {
    Objects.requireNonNull(connection, "connection");
    return guardedByConnection(new LettuceDriver(connection, connection.sync(), connection.async(), false), connection);
  }

  private static LettuceDriver guardedByConnection(LettuceDriver driver, StatefulRedisConnection<String, String> connection) {
    if (connection instanceof RedisChannelHandler<?, ?> handler) {
      RedisConnectionStateListener guard = driver.new FailUnansweredOnDisconnect();
      handler.addListener(guard);
      driver.stopListening = () -> handler.removeListener(guard);
    }
    return driver;
  }

  @Override
  public String get(String key) {
    return sync.get(key);
  }

  @Override
  public boolean setIfAbsent(String key, String value, Duration lease) {
    return "OK".equals(sync.set(key, value, SetArgs.Builder.nx().px(lease.toMillis())));
  }

  @Override
  public boolean delete(String key) {
    return sync.del(key) > 0;
  }

  @Override
  public Object eval(RedisScript script, List<String> keys, List<String> args) {
    String[] keyArray = keys.toArray(String[]::new);
    String[] argArray = args.toArray(String[]::new);
    try {
      return sync.evalsha(script.sha1(), outputType(script), keyArray, argArray);
    } catch (RedisNoScriptException e) {
      return sync.eval(script.text(), outputType(script), keyArray, argArray);
    }
  }

  @Override
  public List<CallOutcome> evalPipelined(RedisScript script, List<ScriptCall> calls) {
    return ScriptPipelines.run(calls, (batch, bySha) -> send(script, batch, bySha));
  }

  @Override
  public boolean isRedisFailure(RuntimeException failure) {
    return failure instanceof RedisException;
  }

  @Override
  public void close() {
    stopListening.run();
    if (ownsConnection) {
      connection.close();
    }
  }

  private List<CallOutcome> send(RedisScript script, List<ScriptCall> calls, boolean bySha) {
    List<RedisFuture<Object>> futures = new ArrayList<>(calls.size());
    List<CallOutcome> outcomes = new ArrayList<>(calls.size());
    try {
      for (ScriptCall call : calls) {
        futures.add(dispatchGuarded(script, call, bySha));
      }
    } catch (RuntimeException notQueued) {
      // The calls from here on were never handed to Lettuce.
      for (int i = futures.size(); i < calls.size(); i++) {
        outcomes.add(null);
      }
      return finish(futures, outcomes, notQueued);
    }
    return finish(futures, outcomes, null);
  }

  /**
   * Hands one script call to Lettuce, guarded from the start: the command is among the unanswered
   * ones before it can be written, so a drop at any moment after fails it before Lettuce can
   * replay it. (Registering the future Lettuce's own dispatch returns left a window: a connection
   * that dropped between the write and the registration had its command replayed and run twice,
   * seen once in a clean-clone run as a DONE where the contract expects UNKNOWN.)
   */
  private RedisFuture<Object> dispatchGuarded(RedisScript script, ScriptCall call, boolean bySha) {
    CommandArgs<String, String> args =
        new CommandArgs<>(StringCodec.UTF8)
            .add(bySha ? script.sha1() : script.text())
            .add(call.keys().size())
            .addKeys(call.keys())
            .addValues(call.args());
    AsyncCommand<String, String, Object> command =
        new AsyncCommand<>(new Command<>(bySha ? CommandType.EVALSHA : CommandType.EVAL, outputOf(script), args));
    unanswered.add(command);
    connection.dispatch(command);
    if (command.isDone()) {
      unanswered.remove(command);
    }
    return command;
  }

  @SuppressWarnings("unchecked")
  private static CommandOutput<String, String, Object> outputOf(RedisScript script) {
    CommandOutput<String, String, ?> output =
        script.reply() == RedisScript.Reply.LIST
            ? new NestedMultiOutput<>(StringCodec.UTF8)
            : new IntegerOutput<>(StringCodec.UTF8);
    return (CommandOutput<String, String, Object>) output;
  }

  private List<CallOutcome> finish(List<RedisFuture<Object>> futures, List<CallOutcome> tail, RuntimeException notQueued) {
    long deadline = System.nanoTime() + connection.getTimeout().toNanos();
    List<CallOutcome> outcomes = new ArrayList<>(futures.size() + tail.size());
    for (RedisFuture<Object> future : futures) {
      outcomes.add(outcomeOf(future, deadline));
    }
    for (int i = 0; i < tail.size(); i++) {
      outcomes.add(CallOutcome.notRun(notQueued));
    }
    return outcomes;
  }

  private CallOutcome outcomeOf(RedisFuture<Object> future, long deadline) {
    try {
      future.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
      return CallOutcome.done();
    } catch (TimeoutException e) {
      // Done now, so never written again; Redis may still run it if it was written.
      future.cancel(false);
      return CallOutcome.unknown(new RedisCommandTimeoutException("no answer within " + connection.getTimeout()));
    } catch (ExecutionException e) {
      Throwable failure = e.getCause() == null ? e : e.getCause();
      return surelyNotRun(failure) ? CallOutcome.notRun(failure) : CallOutcome.unknown(failure);
    } catch (CancellationException e) {
      return CallOutcome.unknown(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      future.cancel(false);
      return CallOutcome.unknown(e);
    } finally {
      if (future instanceof CompletableFuture<?> completable) {
        unanswered.remove(completable);
      }
    }
  }

  /**
   * Failures after which Redis did not run the call: no connection to send it on, a command
   * rejected while disconnected, or an error reply given instead of running it ({@link
   * ErrorReplies}). A timeout or a connection lost with the answer outstanding is not one.
   */
  static boolean surelyNotRun(Throwable failure) {
    if (failure instanceof RedisCommandTimeoutException || failure instanceof AnswerLost) {
      return false;
    }
    if (failure instanceof RedisCommandExecutionException) {
      return ErrorReplies.refusedWithoutRunning(failure.getMessage());
    }
    if (failure instanceof RedisConnectionException) {
      return true;
    }
    String message = failure.getMessage();
    return message != null && message.contains("Commands are rejected");
  }

  private static ScriptOutputType outputType(RedisScript script) {
    return script.reply() == RedisScript.Reply.LIST ? ScriptOutputType.MULTI : ScriptOutputType.INTEGER;
  }

  /** The connection dropped before the answer came: Redis may have run the call. */
  static final class AnswerLost extends RedisException {
    AnswerLost() {
      super("the connection dropped before Redis answered; not sent again");
    }
  }

  /** Fails the unanswered flush calls when the connection drops, before Lettuce can replay them. */
  private final class FailUnansweredOnDisconnect implements RedisConnectionStateListener {
    @Override
    public void onRedisDisconnected(RedisChannelHandler<?, ?> handler) {
      for (CompletableFuture<?> future : unanswered) {
        future.completeExceptionally(new AnswerLost());
      }
    }

    @Override
    public void onRedisConnected(RedisChannelHandler<?, ?> handler, SocketAddress address) {}

    @Override
    public void onRedisExceptionCaught(RedisChannelHandler<?, ?> handler, Throwable cause) {}
  }
}
