package io.refresher.redis;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.refresher.prewarm.PrewarmPorts.PrewarmRecords;
import io.refresher.prewarm.PrewarmStatus;
import java.util.List;
import java.util.Optional;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.redisson.client.RedisException;
import org.redisson.client.codec.StringCodec;

/**
 * The shared prewarm record, {@code refresher:prewarm}: a hash with the status as JSON and, for the
 * scripts that fence it, its state, heartbeat, leader, epoch and start. Lost with Redis's data,
 * like the refill's own progress, and written again by the next refill.
 */
public final class RedisPrewarmRecords implements PrewarmRecords {

  public static final String KEY = "refresher:prewarm";

  /**
   * KEYS: record. ARGV: now, stale-after ms, status JSON, leader, epoch, start (epoch ms). Returns
   * 1 when started: the stored record is of an older epoch (Redis lost its data since: whatever
   * it says, it never holds back the newer epoch's refill), or of this epoch and not running, or
   * running under a leader that stopped sending heartbeats, or this leader's own (a start tried
   * again after a failure, or the same script sent twice). A record of a newer epoch is never
   * replaced by an older one's start. Safe to run twice: the second run finds its own record.
   */
  static final String TRY_START =
      """
      local state = redis.call('HGET', KEYS[1], 'state')
      local updated = tonumber(redis.call('HGET', KEYS[1], 'updatedAt') or '0')
      local leader = redis.call('HGET', KEYS[1], 'leader')
      local epoch = tonumber(redis.call('HGET', KEYS[1], 'epoch') or '0')
      local ours = tonumber(ARGV[5])
      if epoch > ours then
        return 0
      end
      if epoch == ours and state == 'running' and updated > tonumber(ARGV[1]) - tonumber(ARGV[2]) and leader ~= ARGV[4] then
        return 0
      end
      redis.call('HSET', KEYS[1], 'state', 'running', 'updatedAt', ARGV[1], 'status', ARGV[3], 'leader', ARGV[4],
        'epoch', ARGV[5], 'startedAt', ARGV[6])
      return 1
      """;

  /**
   * KEYS: record. ARGV: now, state, status JSON, leader, epoch, start (epoch ms). Returns 1 when
   * saved: the record exists, its epoch is not newer, and it is this refill's (same leader and
   * start). A leader that is no longer current (a newer epoch's or a newer start's record, or none:
   * Redis lost it with its data) writes nothing and learns so from the 0. Safe to run twice.
   */
  static final String SAVE =
      """
      if redis.call('EXISTS', KEYS[1]) == 0 then
        return 0
      end
      local epoch = tonumber(redis.call('HGET', KEYS[1], 'epoch') or '0')
      if epoch > tonumber(ARGV[5]) or redis.call('HGET', KEYS[1], 'leader') ~= ARGV[4]
          or redis.call('HGET', KEYS[1], 'startedAt') ~= ARGV[6] then
        return 0
      end
      redis.call('HSET', KEYS[1], 'state', ARGV[2], 'updatedAt', ARGV[1], 'status', ARGV[3])
      return 1
      """;

  private final RedisReachability reachability;
  private final RedissonClient redisson;
  private final ObjectMapper json;

  public RedisPrewarmRecords(RedissonClient redisson, ObjectMapper json) {
    this(redisson, json, RedisReachability.assumed());
  }

  /** @param reachability while Redis is known to be unreachable, calls fail at once */
  public RedisPrewarmRecords(RedissonClient redisson, ObjectMapper json, RedisReachability reachability) {
    this.reachability = reachability;
    this.redisson = redisson;
    this.json = json;
  }

  @Override
  public boolean tryStart(PrewarmStatus status, long staleAfterMillis) {
    reachability.require("RedisPrewarmRecords.tryStart");
    try {
      return run(TRY_START, Long.toString(status.updatedAt().toEpochMilli()), Long.toString(staleAfterMillis), toJson(status),
          status.leader(), Long.toString(status.epoch()), Long.toString(status.startedAt().toEpochMilli()));
    } catch (RedisException e) {
      throw RedisCacheStore.unavailable("start of a prewarm", e);
    }
  }

  @Override
  public boolean save(PrewarmStatus status) {
    reachability.require("RedisPrewarmRecords.save");
    try {
      return run(SAVE, Long.toString(status.updatedAt().toEpochMilli()), status.state(), toJson(status), status.leader(),
          Long.toString(status.epoch()), Long.toString(status.startedAt().toEpochMilli()));
    } catch (RedisException e) {
      throw RedisCacheStore.unavailable("prewarm record", e);
    }
  }

  private boolean run(String script, Object... args) {
    Long result =
        redisson
            .getScript(StringCodec.INSTANCE)
            .eval(KEY, RScript.Mode.READ_WRITE, script, RScript.ReturnType.INTEGER, List.<Object>of(KEY), args);
    return result != null && result == 1L;
  }

  @Override
  public Optional<PrewarmStatus> load() {
    reachability.require("RedisPrewarmRecords.load");
    try {
      String stored = redisson.<String, String>getMap(KEY, StringCodec.INSTANCE).get("status");
      return stored == null ? Optional.empty() : Optional.of(json.readValue(stored, PrewarmStatus.class));
    } catch (RedisException e) {
      throw RedisCacheStore.unavailable("prewarm record", e);
    } catch (JsonProcessingException e) {
      return Optional.empty(); // written by another version; the next save replaces it
    }
  }

  private String toJson(PrewarmStatus status) {
    try {
      return json.writeValueAsString(status);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("prewarm status not serialisable", e);
    }
  }
}
