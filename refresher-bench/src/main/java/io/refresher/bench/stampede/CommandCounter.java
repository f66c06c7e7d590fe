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
import org.redisson.client.NettyHook;
import org.redisson.client.protocol.CommandData;
import org.redisson.client.protocol.CommandsData;

/**
 * Counts the Redis commands one Redisson client sends, by name, as they are written to its
 * connections (a script is one EVALSHA; a pipeline counts each command in it). INFO commandstats
 * cannot tell the strategies apart when they run at the same time on one server; this can.
 */
final class CommandCounter implements NettyHook {

  private final Map<String, LongAdder> calls = new ConcurrentHashMap<>();
  private final Outbound outbound = new Outbound();

  @Override
  public void afterBoostrapInitialization(Bootstrap bootstrap) {}

  @Override
  public void afterChannelInitialization(Channel channel) {
    // Last in the pipeline: an outbound write passes here first, still a command object.
    channel.pipeline().addLast("stampede-command-counter", outbound);
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
