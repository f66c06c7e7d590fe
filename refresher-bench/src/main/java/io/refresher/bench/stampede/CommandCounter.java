package io.refresher.bench.stampede;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.client.NettyHook;
import org.redisson.client.RedisConnection;
import org.redisson.client.protocol.CommandData;
import org.redisson.client.protocol.CommandsData;
import org.redisson.connection.ClientConnectionsEntry;
import org.redisson.connection.ConnectionManager;
import org.redisson.connection.MasterSlaveEntry;

/**
 * Counts the Redis commands one Redisson client sends, by name, as they are written to its
 * connections (a script is one EVALSHA; a pipeline counts each command in it). INFO commandstats
 * cannot tell the strategies apart when they run at the same time on one server; this can.
 */
final class CommandCounter implements NettyHook {

  private static final String NAME = "stampede-command-counter";

  private final Map<String, LongAdder> calls = new ConcurrentHashMap<>();
  private final Outbound outbound = new Outbound();

  @Override
  public void afterBoostrapInitialization(Bootstrap bootstrap) {}

  @Override
  public void afterChannelInitialization(Channel channel) {
    // Last in the pipeline: an outbound write passes here first, still a command object.
    synchronized (channel) {
      if (channel.pipeline().get(NAME) == null) {
        channel.pipeline().addLast(NAME, outbound);
      }
    }
  }

  /**
   * Counts the commands of a Redisson client someone else built (the service's): the hook goes
   * into the live configuration of each of its Redis clients, which their channel initialisers read
   * for every new connection, and the handler onto the connections already open. Redisson's
   * internal API, for the benchmark only. (A counting proxy in front of Redis, tried first, put two
   * more threads and copies in every service command's path; under CPU contention the service's
   * Redis calls through it timed out while the readers' direct connections did not.)
   */
  static CommandCounter attachTo(RedissonClient redisson) {
    CommandCounter counter = new CommandCounter();
    ConnectionManager manager = ((Redisson) redisson).getCommandExecutor().getConnectionManager();
    for (MasterSlaveEntry entry : manager.getEntrySet()) {
      for (ClientConnectionsEntry client : entry.getAllEntries()) {
        client.getClient().getConfig().setNettyHook(counter);
        for (RedisConnection connection : client.getConnectionsHolder().getAllConnections()) {
          counter.afterChannelInitialization(connection.getChannel());
        }
        for (RedisConnection connection : client.getPubSubConnectionsHolder().getAllConnections()) {
          counter.afterChannelInitialization(connection.getChannel());
        }
      }
    }
    return counter;
  }

  /** Commands sent so far, by lower-case name. */
  Map<String, Long> snapshot() {
    Map<String, Long> copy = new TreeMap<>();
    calls.forEach((name, count) -> copy.put(name, count.sum()));
    return copy;
  }

  static long total(Map<String, Long> counts) {
    return counts.values().stream().mapToLong(Long::longValue).sum();
  }

  private void count(CommandData<?, ?> command) {
    String name = command.getCommand().getName().toLowerCase(java.util.Locale.ROOT);
    calls.computeIfAbsent(name, n -> new LongAdder()).increment();
  }

  @ChannelHandler.Sharable
  private final class Outbound extends ChannelOutboundHandlerAdapter {
    @Override
    public void write(ChannelHandlerContext ctx, Object message, ChannelPromise promise) throws Exception {
      if (message instanceof CommandData<?, ?> command) {
        count(command);
      } else if (message instanceof CommandsData batch) {
        for (CommandData<?, ?> command : batch.getCommands()) {
          count(command);
        }
      }
      super.write(ctx, message, promise);
    }
  }
}
