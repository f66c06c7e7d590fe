package io.refresher.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.EventLoopGroup;
import io.refresher.config.RedisFactory;
import io.refresher.testing.RealServers;
import io.refresher.testing.TestRedis;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

/**
 * The service's Redis client on a busy machine: a command that cannot be written to its connection
 * at once (the client's I/O threads are busy for a moment, as under CPU pressure when the service is
 * busiest) waits and goes out, instead of failing.
 *
 * <p>Redisson gives a command until its retry delay to be written, then retries it once, then fails
 * it with "Command still hasn't been written into connection". With the 10 ms retry delay the
 * service had, a 20 ms stall of the I/O threads failed lock and value writes by the dozen in the
 * benchmark.
 */
class BusyClientIT {

  private static TestRedis redis;
  private static RedissonClient redisson;

  @BeforeAll
  static void start() {
    redis = RealServers.newRedis();
    RedisFactory factory = new RedisFactory();
    factory.setUrl(redis.url());
    redisson = factory.build();
  }

  @AfterAll
  static void stop() {
    redisson.shutdown();
    redis.close();
  }

  @Test
  void ioThreadsBusyFor60Millis_aCommandWaitsAndSucceeds() throws Exception {
    redisson.getBucket("busy:key", StringCodec.INSTANCE).set("value");
    EventLoopGroup io = ((Redisson) redisson).getServiceManager().getGroup();
    List<CountDownLatch> busy = new ArrayList<>();
    CountDownLatch release = new CountDownLatch(1);
    io.forEach(
        loop -> {
          CountDownLatch started = new CountDownLatch(1);
          busy.add(started);
          loop.execute(
              () -> {
                started.countDown();
                try {
                  release.await(60, TimeUnit.MILLISECONDS);
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                }
              });
        });
    for (CountDownLatch started : busy) {
      assertThat(started.await(5, TimeUnit.SECONDS)).as("every I/O thread busy").isTrue();
    }

    String read = redisson.<String>getBucket("busy:key", StringCodec.INSTANCE).get();

    assertThat(read).isEqualTo("value");
  }
}
