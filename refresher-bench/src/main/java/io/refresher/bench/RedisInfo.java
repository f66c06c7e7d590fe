package io.refresher.bench;

import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.redisson.api.RedissonClient;
import org.redisson.api.redisnode.RedisNode;
import org.redisson.api.redisnode.RedisNodes;

/** What Redis itself counts, read through a client. */
final class RedisInfo {

  private static final Pattern CALLS = Pattern.compile("calls=(\\d+)");

  private RedisInfo() {}

  /** Calls per command since Redis started, from INFO commandstats (script-internal ones included). */
  static Map<String, Long> commandCalls(RedissonClient redisson) {
    Map<String, String> stats =
        redisson.getRedisNodes(RedisNodes.SINGLE).getInstance().info(RedisNode.InfoSection.COMMANDSTATS);
    Map<String, Long> calls = new TreeMap<>();
    stats.forEach(
        (name, line) -> {
          Matcher matcher = CALLS.matcher(line);
          if (matcher.find()) {
            calls.put(name.replace("cmdstat_", ""), Long.parseLong(matcher.group(1)));
          }
        });
    return calls;
  }

  /** {@code after - before} per command, leaving out commands that did not run in between. */
  static Map<String, Long> difference(Map<String, Long> before, Map<String, Long> after) {
    Map<String, Long> calls = new TreeMap<>();
    after.forEach(
        (command, total) -> {
          long delta = total - before.getOrDefault(command, 0L);
          if (delta > 0) {
            calls.put(command, delta);
          }
        });
    return calls;
  }
}
