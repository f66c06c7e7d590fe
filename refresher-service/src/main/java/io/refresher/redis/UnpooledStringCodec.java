package io.refresher.redis;

import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import org.redisson.client.codec.StringCodec;
import org.redisson.client.protocol.Encoder;

/**
 * {@link StringCodec} whose encoded arguments live on the heap (unpooled) instead of in Netty's
 * pooled direct memory. Decoding is StringCodec's.
 *
 * <p>Why: the arguments of a script are encoded when it is added to a batch, and Redisson 3.52.0
 * (and 4.x, up to 4.7.0) never releases them when the batch fails before it is sent. That happens
 * after every disconnect: Redisson forgets which scripts the node has, so the next batch first
 * loads its scripts, and while Redis is still unreachable that load fails and the batch is dropped
 * with its arguments ({@code CommandBatchService#execute}, the {@code loadScripts} branch). Netty
 * reported it as "LEAK: ByteBuf.release() was not called" after a Redis restart; while Redis stays
 * down, every dispatcher tick (claims, renewals, reschedules: every 50 ms) leaked a few pooled
 * buffers. A heap buffer nobody releases is simply garbage-collected, so no pooled memory can leak
 * through this path; the copy into the outbound buffer happens either way.
 */
public final class UnpooledStringCodec extends StringCodec {

  public static final UnpooledStringCodec INSTANCE = new UnpooledStringCodec();

  private final Encoder encoder = in -> Unpooled.wrappedBuffer(in.toString().getBytes(StandardCharsets.UTF_8));

  @Override
  public Encoder getValueEncoder() {
    return encoder;
  }

  @Override
  public Encoder getEncoder() {
    return encoder;
  }
}
