package io.refresher.redis;

import org.redisson.api.BatchOptions;
import org.redisson.api.RBatch;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.redisson.api.options.OptionalOptions;
import org.redisson.client.codec.Codec;

/**
 * Script calls that Redisson must never send twice.
 *
 * <p>Redisson (3.52) sends a command again when its reply is later than {@code redis.timeout} and
 * {@code retryAttempts} allows it (the service allows one), unless the command is in {@code
 * RedisCommands.NO_RETRY}, which does not list {@code EVAL}/{@code EVALSHA}: a script whose reply
 * was late then runs twice, the second time after whatever happened in between. Most of the
 * service's scripts are written so that a second run by the same caller answers as the first did
 * (they carry a claim score, an owner, a fence); the few that cannot be (a retirement that deletes
 * what a newer registration may have written in between) go through here, with no resend: their
 * caller sees the timeout and decides. {@code RedissonResendIT} pins both behaviours, so an
 * upgrade that changes them is noticed; {@code docs/protocol.md} ("Script idempotence") lists
 * which script goes which way.
 */
final class RedisScripts {

  private RedisScripts() {}

  /** A script client whose calls are sent once: a late reply fails the call, nothing is re-sent. */
  static RScript withoutResend(RedissonClient redisson, Codec codec) {
    return redisson.getScript(OptionalOptions.defaults().codec(codec).retryAttempts(0));
  }

  /** A pipeline sent once (batches have their own retry setting). */
  static RBatch batchWithoutResend(RedissonClient redisson) {
    return redisson.createBatch(BatchOptions.defaults().retryAttempts(0));
  }
}
