package io.refresher.bench.stampede;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import org.redisson.api.RScript;
import org.redisson.client.codec.StringCodec;

/**
 * (c) Cache-aside with a single-flight lock in the reader: on a miss, {@code SET lock NX PX};
 * the winner re-reads, computes, writes and releases (compare-and-delete script); the others
 * wait and re-read until the value is there, or compute themselves after a bounded wait.
 */
final class LockedCacheAside implements Strategy {

  static final Duration LEASE = Duration.ofSeconds(5);
  static final Duration POLL = Duration.ofMillis(20);
  static final Duration MAX_WAIT = Duration.ofSeconds(2);

  private static final String RELEASE =
      "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end";

  private final StrategyContext context;
  private final String releaseSha;
  private final LongAdder misses = new LongAdder();
  private final LongAdder locked = new LongAdder();
  private final LongAdder waited = new LongAdder();
  private final LongAdder fallbacks = new LongAdder();

  LockedCacheAside(StrategyContext context) {
    this.context = context;
    this.releaseSha = context.redisson().getScript(StringCodec.INSTANCE).scriptLoad(RELEASE);
  }

  @Override
  public void prefill(long writtenMicros, long[] expiresMicros) {
    context.prefill(writtenMicros, expiresMicros, rank -> SourceValues.warm(context.kind().id(), rank, writtenMicros));
  }

  @Override
  public String read(int rank, int instance) throws Exception {
    String key = context.key(rank);
    String value = context.bucket(key).get();
    if (value != null) {
      return value;
    }
    misses.increment();
    String lock = "lock:" + key;
    String token = UUID.randomUUID().toString();
    if (context.bucket(lock).setIfAbsent(token, LEASE)) {
      locked.increment();
      try {
        value = context.bucket(key).get(); // written between our GET and our lock?
        if (value == null) {
          value = context.source().compute(rank);
          context.writeWithTtl(rank, key, value);
        }
        return value;
      } finally {
        context
            .redisson()
            .getScript(StringCodec.INSTANCE)
            .evalSha(RScript.Mode.READ_WRITE, releaseSha, RScript.ReturnType.INTEGER, List.of(lock), token);
      }
    }
    waited.increment();
    long deadline = System.nanoTime() + MAX_WAIT.toNanos();
    while (System.nanoTime() < deadline) {
      TimeUnit.NANOSECONDS.sleep(POLL.toNanos());
      value = context.bucket(key).get();
      if (value != null) {
        return value;
      }
    }
    fallbacks.increment();
    value = context.source().compute(rank);
    context.writeWithTtl(rank, key, value);
    return value;
  }

  @Override
  public String description() {
    return "`GET`; on a miss `SET lock:<key> <token> NX PX 5000`. The winner `GET`s again (another may "
        + "have written meanwhile), runs the source, `SET PX ttl`, and releases with a compare-and-delete "
        + "script (`EVALSHA`). The others sleep 20 ms and `GET` again, up to 2 s, then run the source "
        + "themselves. One source run per expiry, but every reader of the key waits for it.";
  }

  @Override
  public Map<String, Long> counters() {
    return Map.of("misses", misses.sum(), "lockTaken", locked.sum(), "waited", waited.sum(), "fallbacks", fallbacks.sum());
  }
}
