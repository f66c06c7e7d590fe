package io.refresher.testing;

import io.refresher.client.protocol.AccessProtocol;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Reports reads the way a reader in any language would: no Redis library, only {@code HINCRBY}
 * and {@code EXPIRE} written in the Redis wire protocol (RESP) on a plain socket, pipelined, on
 * the access buckets of {@code docs/protocol.md}. Every 100 ms it adds, for each key, the reads of
 * its configured rate. Single Redis server only (no cluster redirections).
 */
public final class AccessReporter implements AutoCloseable {

  private static final long TICK_MILLIS = 100;

  private final Socket socket;
  private final OutputStream out;
  private final InputStream in;
  private final Map<String, Double> readsPerSecond = new ConcurrentHashMap<>();
  private final Map<String, Double> carry = new ConcurrentHashMap<>();
  private final ScheduledExecutorService thread = Executors.newSingleThreadScheduledExecutor();

  public AccessReporter(TestRedis redis) {
    URI uri = URI.create(redis.url());
    try {
      socket = new Socket(uri.getHost(), uri.getPort());
      out = socket.getOutputStream();
      in = new BufferedInputStream(socket.getInputStream());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    thread.scheduleAtFixedRate(this::report, 0, TICK_MILLIS, TimeUnit.MILLISECONDS);
  }

  /** From now on, reports {@code rate} reads per second of {@code key} (0 stops). */
  public void read(String key, double rate) {
    if (rate <= 0) {
      readsPerSecond.remove(key);
    } else {
      readsPerSecond.put(key, rate);
    }
  }

  public void stopAll() {
    readsPerSecond.clear();
  }

  private void report() {
    List<String[]> commands = new ArrayList<>();
    long second = AccessProtocol.secondOf(System.currentTimeMillis());
    for (Map.Entry<String, Double> entry : readsPerSecond.entrySet()) {
      double due = carry.getOrDefault(entry.getKey(), 0.0) + entry.getValue() * TICK_MILLIS / 1000.0;
      long whole = (long) due;
      carry.put(entry.getKey(), due - whole);
      if (whole > 0) {
        String bucket = AccessProtocol.bucketKey(AccessProtocol.shardOf(entry.getKey()), second);
        commands.add(new String[] {"HINCRBY", bucket, entry.getKey(), Long.toString(whole)});
        commands.add(new String[] {"EXPIRE", bucket, Integer.toString(AccessProtocol.BUCKET_TTL_SECONDS)});
      }
    }
    if (!commands.isEmpty()) {
      pipeline(commands);
    }
  }

  /** Sends all commands, then reads one reply per command; fails on an error reply. */
  private synchronized void pipeline(List<String[]> commands) {
    try {
      StringBuilder request = new StringBuilder();
      for (String[] command : commands) {
        request.append('*').append(command.length).append("\r\n");
        for (String part : command) {
          byte[] bytes = part.getBytes(StandardCharsets.UTF_8);
          request.append('$').append(bytes.length).append("\r\n").append(part).append("\r\n");
        }
      }
      out.write(request.toString().getBytes(StandardCharsets.UTF_8));
      out.flush();
      for (int i = 0; i < commands.size(); i++) {
        String reply = readLine();
        if (!reply.startsWith(":")) {
          throw new IllegalStateException("Redis replied " + reply + " to " + String.join(" ", commands.get(i)));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private String readLine() throws IOException {
    StringBuilder line = new StringBuilder();
    int c;
    while ((c = in.read()) != -1 && c != '\r') {
      line.append((char) c);
    }
    in.read(); // '\n'
    return line.toString();
  }

  @Override
  public void close() {
    thread.shutdownNow();
    try {
      thread.awaitTermination(1, TimeUnit.SECONDS);
      socket.close();
    } catch (IOException | InterruptedException e) {
      // closing a test helper
    }
  }
}
