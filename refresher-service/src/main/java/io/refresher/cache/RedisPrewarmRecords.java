package io.refresher.cache;

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
 * start script, its state and heartbeat. Lost with Redis's data, like the refill's own progress,
 * and written again by the next refill.
 */
public final class RedisPrewarmRecords implements PrewarmRecords {

  public static final String KEY = "refresher:prewarm";

  /**
   * KEYS: record. ARGV: now, stale-after ms, status JSON, leader. Returns 1 when started: no
   * refill runs, or the running one's leader stopped sending heartbeats, or it is this leader's own
   * (a start tried again after a failure).
   */
  static final String TRY_START =
      """
      local state = redis.call('HGET', KEYS[1], 'state')
      local updated = tonumber(redis.call('HGET', KEYS[1], 'updatedAt') or '0')
      local leader = redis.call('HGET', KEYS[1], 'leader')
      if state == 'running' and updated > tonumber(ARGV[1]) - tonumber(ARGV[2]) and leader ~= ARGV[4] then
        return 0
      end
      redis.call('HSET', KEYS[1], 'state', 'running', 'updatedAt', ARGV[1], 'status', ARGV[3], 'leader', ARGV[4])
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
      Long started =
          redisson
              .getScript(StringCodec.INSTANCE)
              .eval(
                  KEY,
                  RScript.Mode.READ_WRITE,
                  TRY_START,
                  RScript.ReturnType.INTEGER,
                  List.<Object>of(KEY),
                  Long.toString(status.updatedAt().toEpochMilli()),
                  Long.toString(staleAfterMillis),
                  toJson(status),
                  status.leader());
      return started == 1L;
    } catch (RedisException e) {
      throw RedisCacheStore.unavailable("start of a prewarm", e);
    }
  }

  @Override
  public void save(PrewarmStatus status) {
    reachability.require("RedisPrewarmRecords.save");
    try {
      redisson
          .<String, String>getMap(KEY, StringCodec.INSTANCE)
          .putAll(
              java.util.Map.of(
                  "state", status.state(),
                  "updatedAt", Long.toString(status.updatedAt().toEpochMilli()),
                  "status", toJson(status),
                  "leader", status.leader()));
    } catch (RedisException e) {
      throw RedisCacheStore.unavailable("prewarm record", e);
    }
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
