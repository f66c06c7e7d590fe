package io.refresher.bench;

import io.refresher.embedded.RespConnection;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The memory phase's commands that Redisson has no call for ({@code MEMORY USAGE ... SAMPLES 0},
 * {@code SCAN}, {@code INFO memory} as text), on a plain RESP connection to one database of the
 * run's Redis, pipelined so that a sample of a thousand keys is one round trip.
 */
final class RawRedis implements AutoCloseable {

  private final RespConnection connection;

  RawRedis(int port, int database) throws IOException {
    connection = RespConnection.open(port, Duration.ofSeconds(60));
    call("SELECT", Integer.toString(database));
  }

  Object call(String... args) throws IOException {
    return connection.call(args);
  }

  /** Sends every command, then reads every reply (in order). */
  List<Object> pipeline(List<String[]> commands) throws IOException {
    return connection.pipeline(commands);
  }

  long number(String... args) throws IOException {
    Object reply = call(args);
    return reply == null ? 0 : (Long) reply;
  }

  /** {@code INFO <section>} as name → value. */
  Map<String, String> info(String section) throws IOException {
    Map<String, String> fields = new LinkedHashMap<>();
    for (String line : ((String) call("INFO", section)).split("\r\n")) {
      int colon = line.indexOf(':');
      if (colon > 0 && !line.startsWith("#")) {
        fields.put(line.substring(0, colon), line.substring(colon + 1));
      }
    }
    return fields;
  }

  /** {@code CONFIG GET <name>}'s value. */
  String config(String name) throws IOException {
    List<?> reply = (List<?>) call("CONFIG", "GET", name);
    return reply.size() >= 2 ? (String) reply.get(1) : "";
  }

  /** Every key of the database ({@code SCAN}, 1,000 a call). */
  List<String> keys() throws IOException {
    List<String> keys = new ArrayList<>();
    String cursor = "0";
    do {
      List<?> reply = (List<?>) call("SCAN", cursor, "COUNT", "1000");
      cursor = (String) reply.get(0);
      for (Object key : (List<?>) reply.get(1)) {
        keys.add((String) key);
      }
    } while (!cursor.equals("0"));
    return keys;
  }

  /** {@code MEMORY USAGE key SAMPLES 0} (every element counted) of each key; 0 for a missing one. */
  long[] memoryUsage(List<String> keys) throws IOException {
    long[] bytes = new long[keys.size()];
    for (int from = 0; from < keys.size(); from += 1_000) {
      List<String[]> commands = new ArrayList<>();
      for (int i = from; i < Math.min(keys.size(), from + 1_000); i++) {
        commands.add(new String[] {"MEMORY", "USAGE", keys.get(i), "SAMPLES", "0"});
      }
      List<Object> replies = pipeline(commands);
      for (int i = 0; i < replies.size(); i++) {
        Object reply = replies.get(i);
        bytes[from + i] = reply == null ? 0 : (Long) reply;
      }
    }
    return bytes;
  }

  @Override
  public void close() throws IOException {
    connection.close();
  }
}
