package io.refresher.bench;

import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.redisson.api.RedissonClient;
import org.redisson.api.redisnode.RedisNode;
import org.redisson.api.redisnode.RedisNodes;

/**
 * Calls per command from {@code INFO commandstats}, which counts the commands clients send and,
 * separately, the ones scripts run inside Redis. A snapshot; subtract two for an interval.
 */
public record RedisCommandStats(Map<String, Long> calls) {

  private static final Pattern CALLS = Pattern.compile("calls=(\\d+)");

  /**
   * Commands only clients send (each one a request on the wire): a script call counts once,
   * however many commands it runs. The service sends nothing else on its refresh path; the
   * others (GET, SET, ...) also run inside scripts, so they would be counted twice.
   */
  private static final java.util.List<String> CLIENT_ONLY =
      java.util.List.of("evalsha", "eval", "evalsha_ro", "eval_ro", "script", "ping", "info", "time");

  public static RedisCommandStats of(RedissonClient redisson) {
    Map<String, String> stats =
        redisson.getRedisNodes(RedisNodes.SINGLE).getInstance().info(RedisNode.InfoSection.COMMANDSTATS);
    Map<String, Long> calls = new TreeMap<>();
    stats.forEach(
        (name, line) -> {
          Matcher matcher = CALLS.matcher(line);
          if (matcher.find()) {
            calls.put(name.replace("cmdstat_", "").replace("|", "_"), Long.parseLong(matcher.group(1)));
          }
        });
    return new RedisCommandStats(calls);
  }

  public RedisCommandStats minus(RedisCommandStats before) {
    Map<String, Long> delta = new TreeMap<>();
    calls.forEach((command, total) -> delta.put(command, total - before.calls.getOrDefault(command, 0L)));
    return new RedisCommandStats(delta);
  }

  public long of(String command) {
    return calls.getOrDefault(command, 0L);
  }

  /** Requests clients sent (script calls count once). */
  public long clientRequests() {
    long total = 0;
    for (String command : CLIENT_ONLY) {
      total += of(command);
    }
    return total;
  }

  /** Every command run, scripts' inner ones included (script calls themselves excluded). */
  public long commandsRun() {
    long total = 0;
    for (Map.Entry<String, Long> entry : calls.entrySet()) {
      if (!CLIENT_ONLY.contains(entry.getKey())) {
        total += entry.getValue();
      }
    }
    return total;
  }
}
