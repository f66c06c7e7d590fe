package io.refresher.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;
import static org.awaitility.Awaitility.await;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.refresher.redis.UnpooledStringCodec;
import io.refresher.testing.RealServers;
import io.refresher.testing.TestRedis;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RBatch;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.redisson.client.RedisException;
import org.redisson.client.codec.StringCodec;
import org.redisson.client.protocol.Encoder;
import org.redisson.config.Config;
import org.redisson.connection.ConnectionListener;

/**
 * The Redisson behaviour behind the leak that {@link UnpooledStringCodec} works around, on a
 * plain client: after a disconnect Redisson forgets which scripts the node has; a batch with a
 * script then first loads it, and when Redis is still unreachable the load fails and the batch is
 * dropped without releasing the script arguments it had already encoded. This test pins that
 * behaviour of Redisson 3.52.0: when an upgrade fixes it, it fails, and the workaround can go
 * (docs/reliability.md ("Finding 11")).
 */
class RedissonBatchScriptLeakIT {

  private static final String SCRIPT = "return ARGV[1]";

  private TestRedis redis;
  private RedissonClient client;
  private final List<ByteBuf> encoded = new CopyOnWriteArrayList<>();
  private final AtomicBoolean disconnected = new AtomicBoolean();

  /** StringCodec, with each encoded argument (pooled, like StringCodec's) remembered. */
  private final StringCodec tracking =
      new StringCodec() {
        private final Encoder encoder = in -> {
          ByteBuf out = ByteBufAllocator.DEFAULT.buffer();
          out.writeCharSequence(in.toString(), StandardCharsets.UTF_8);
          encoded.add(out);
          return out;
        };

        @Override
        public Encoder getValueEncoder() {
          return encoder;
        }
      };

  @BeforeEach
  void connect() {
    redis = RealServers.newRedis();
    assumeThat(redis.supportsProcessFaults()).as("needs a Redis process to kill").isTrue();
    Config config = new Config();
    config.setUseScriptCache(true); // as RedisFactory configures the service's client
    config.setConnectionListener(new ConnectionListener() {
      @Override
      public void onConnect(InetSocketAddress address) {}

      @Override
      public void onDisconnect(InetSocketAddress address) {
        disconnected.set(true);
      }
    });
    config.useSingleServer().setAddress(redis.url()).setTimeout(500).setRetryAttempts(0).setConnectTimeout(500);
    client = Redisson.create(config);
  }

  @AfterEach
  void close() {
    if (client != null) {
      client.shutdown();
    }
    encoded.forEach(buffer -> {
      if (buffer.refCnt() > 0) {
        buffer.release(buffer.refCnt());
      }
    });
    if (redis != null) {
      redis.close();
    }
  }

  @Test
  void batchedScript_scriptLoadFailsAfterDisconnect_argumentsAreNeverReleased() {
    // Before the fault, a batch releases what it encoded.
    runBatch(tracking); // the script is loaded and cached for the node
    assertThat(encoded).isNotEmpty().allSatisfy(buffer -> assertThat(buffer.refCnt()).isZero());
    encoded.clear();

    redis.killProcess();
    await("Redisson notices the disconnect").atMost(Duration.ofSeconds(10)).untilTrue(disconnected);
    // Every batch while Redis stays unreachable (the dispatcher sends a few per poll).
    for (int i = 0; i < 5; i++) {
      assertThatThrownBy(() -> runBatch(tracking)).isInstanceOf(RedisException.class);
    }

    assertThat(encoded).as("arguments encoded for the failed batches (2 each)").hasSize(10);
    assertThat(encoded)
        .as("Redisson 3.52.0 leaves them allocated (refCnt 1); if this fails, Redisson releases them now")
        .allSatisfy(buffer -> assertThat(buffer.refCnt()).isEqualTo(1));
  }

  private void runBatch(StringCodec codec) {
    RBatch batch = client.createBatch();
    batch.getScript(codec).evalAsync("k", RScript.Mode.READ_WRITE, SCRIPT, RScript.ReturnType.VALUE, List.of("k"), "a", "b");
    batch.execute();
  }
}
