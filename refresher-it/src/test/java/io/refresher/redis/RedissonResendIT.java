package io.refresher.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.refresher.config.RedisFactory;
import io.refresher.testing.RealServers;
import io.refresher.testing.RedisPause;
import io.refresher.testing.TestRedis;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.redisson.api.RBatch;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

/**
 * Pins what Redisson does with a script whose reply is later than {@code redis.timeout}, with the
 * service's own client settings ({@link RedisFactory}: {@code retryAttempts 1}): it sends the
 * script again, so the script runs twice once Redis resumes. The service's scripts are written for
 * that (see {@code ScriptIdempotenceIT} and {@code docs/protocol.md}, "Script idempotence"), and
 * the ones that cannot be go through {@link RedisScripts}, which must send once. If a Redisson
 * upgrade changes either behaviour, this test fails and the table in protocol.md is to be read
 * again.
 *
 * <p>The script increments a counter; Redis is paused ({@code CLIENT PAUSE ALL}) for longer than
 * the timeout and its retry delay, so both sends queue behind the pause and both run after it.
 */
class RedissonResendIT {

  private static final Duration TIMEOUT = Duration.ofSeconds(1);
  /** Longer than the timeout plus Redisson's retry delay (220 ms), shorter than two timeouts. */
  private static final Duration PAUSE = Duration.ofMillis(1_900);

  private static final String COUNT = "return redis.call('INCR', KEYS[1])";

  private static TestRedis redis;
  private static RedissonClient service;
  private static RedissonClient reader;

  @BeforeAll
  static void start() {
    redis = RealServers.newRedis();
    RedisFactory factory = new RedisFactory();
    factory.setUrl(redis.url());
    factory.setTimeout(io.dropwizard.util.Duration.milliseconds(TIMEOUT.toMillis()));
    service = factory.build();
    reader = redis.connect();
  }

  @AfterAll
  static void stop() {
    if (service != null) {
      service.shutdown();
    }
    if (reader != null) {
      reader.shutdown();
    }
    if (redis != null) {
      redis.close();
    }
  }

  @AfterEach
  void unpause() {
    RedisPause.end(redis);
  }

  @Test
  void eval_replyLaterThanTimeout_isSentAgainAndRunsTwice() {
    String counter = "resend:eval";
    CompletableFuture<Object> reply =
        whilePaused(
            () ->
                service
                    .getScript(StringCodec.INSTANCE)
                    .evalAsync(counter, RScript.Mode.READ_WRITE, COUNT, RScript.ReturnType.INTEGER, List.of(counter)));

    awaitCount(counter, 2);
    // The caller is answered by the second run, as if the first had not happened.
    assertThat(reply.join()).isEqualTo(2L);
  }

  @Test
  void scriptInBatch_replyLaterThanTimeout_isSentAgainAndRunsTwice() {
    String counter = "resend:batch";
    CompletableFuture<Object> reply =
        whilePaused(
            () -> {
              RBatch batch = service.createBatch();
              batch
                  .getScript(StringCodec.INSTANCE)
                  .evalAsync(counter, RScript.Mode.READ_WRITE, COUNT, RScript.ReturnType.INTEGER, List.of(counter));
              return batch.executeAsync().thenApply(result -> result.getResponses().get(0));
            });

    awaitCount(counter, 2);
    assertThat(reply.join()).isEqualTo(2L);
  }

  @Test
  void withoutResend_replyLaterThanTimeout_runsOnceAndFailsTheCall() {
    String counter = "resend:once";
    CompletableFuture<Object> reply =
        whilePaused(
            () ->
                RedisScripts.withoutResend(service, StringCodec.INSTANCE)
                    .evalAsync(counter, RScript.Mode.READ_WRITE, COUNT, RScript.ReturnType.INTEGER, List.of(counter)));

    awaitCount(counter, 1);
    assertThat(reply).isCompletedExceptionally();
    assertRunsNoMore(counter, 1);
  }

  @Test
  void batchWithoutResend_replyLaterThanTimeout_runsOnceAndFailsTheCall() {
    String counter = "resend:batch-once";
    CompletableFuture<Object> reply =
        whilePaused(
            () -> {
              RBatch batch = RedisScripts.batchWithoutResend(service);
              batch
                  .getScript(StringCodec.INSTANCE)
                  .evalAsync(counter, RScript.Mode.READ_WRITE, COUNT, RScript.ReturnType.INTEGER, List.of(counter));
              return batch.executeAsync().thenApply(result -> result.getResponses().get(0));
            });

    awaitCount(counter, 1);
    // Seen on 3.52: a pipeline sent once waits for its reply past the timeout and is answered.
    if (!reply.isCompletedExceptionally()) {
      assertThat(reply.join()).isEqualTo(1L);
    }
    assertRunsNoMore(counter, 1);
  }

  /** Pauses Redis, sends, and returns the reply once the call has ended (answered or failed). */
  private static CompletableFuture<Object> whilePaused(java.util.function.Supplier<CompletionStage<?>> send) {
    // A connection made before the pause: the call must not wait for one.
    service.getBucket("resend:warm").get();
    RedisPause.pauseAll(redis, PAUSE);
    CompletableFuture<Object> reply = send.get().toCompletableFuture().thenApply(value -> (Object) value);
    await().atMost(Duration.ofSeconds(15)).until(reply::isDone);
    return reply;
  }

  private static void awaitCount(String counter, long expected) {
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(() -> assertThat(reader.getBucket(counter).get()).isEqualTo(Long.toString(expected)));
  }

  /** Nothing is left queued that would run the script once more. */
  private static void assertRunsNoMore(String counter, long expected) {
    // A marker written after the pause by the same client lands after anything it queued before.
    service.getBucket("resend:after").set("1");
    assertThat(reader.getBucket(counter).get()).isEqualTo(Long.toString(expected));
  }
}
