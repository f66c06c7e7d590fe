package io.refresher.bench;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A minimal RESP2 connection to the run's Redis on loopback, for the commands the memory phase
 * sends that Redisson has no call for ({@code MEMORY USAGE ... SAMPLES 0}, {@code SCAN}, {@code INFO
 * memory} as text) and pipelined ({@link #pipeline}) so that a sample of a thousand keys is one
 * round trip.
 *
 * <p>Replies: simple and bulk strings as {@code String}, integers as {@code Long}, nil as {@code
 * null}, arrays as {@code List<Object>}; an error reply throws.
 */
final class RawRedis implements AutoCloseable {

  private final Socket socket;
  private final InputStream in;
  private final OutputStream out;

  RawRedis(int port, int database) throws IOException {
    socket = new Socket();
    socket.setTcpNoDelay(true);
    socket.setSoTimeout(60_000);
    socket.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
    in = new BufferedInputStream(socket.getInputStream(), 1 << 16);
    out = socket.getOutputStream();
    call("SELECT", Integer.toString(database));
  }

  Object call(String... args) throws IOException {
    out.write(encode(args));
    out.flush();
    return read();
  }

  /** Sends every command, then reads every reply (in order). */
  List<Object> pipeline(List<String[]> commands) throws IOException {
    ByteArrayOutputStream all = new ByteArrayOutputStream();
    for (String[] command : commands) {
      all.writeBytes(encode(command));
    }
    out.write(all.toByteArray());
    out.flush();
    List<Object> replies = new ArrayList<>(commands.size());
    for (int i = 0; i < commands.size(); i++) {
      replies.add(read());
    }
    return replies;
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

  private static byte[] encode(String[] args) {
    ByteArrayOutputStream command = new ByteArrayOutputStream();
    command.writeBytes(("*" + args.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
    for (String arg : args) {
      byte[] bytes = arg.getBytes(StandardCharsets.UTF_8);
      command.writeBytes(("$" + bytes.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
      command.writeBytes(bytes);
      command.writeBytes(new byte[] {'\r', '\n'});
    }
    return command.toByteArray();
  }

  private Object read() throws IOException {
    int type = in.read();
    if (type < 0) {
      throw new EOFException("Redis closed the connection");
    }
    String line = line();
    switch (type) {
      case '+':
        return line;
      case '-':
        throw new IOException("Redis: " + line);
      case ':':
        return Long.parseLong(line);
      case '$': {
        int length = Integer.parseInt(line);
        if (length < 0) {
          return null;
        }
        byte[] bytes = in.readNBytes(length + 2);
        return new String(bytes, 0, length, StandardCharsets.UTF_8);
      }
      case '*': {
        int count = Integer.parseInt(line);
        if (count < 0) {
          return null;
        }
        List<Object> items = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
          items.add(read());
        }
        return items;
      }
      default:
        throw new IOException("unexpected RESP type " + (char) type);
    }
  }

  private String line() throws IOException {
    StringBuilder line = new StringBuilder();
    int c;
    while ((c = in.read()) != '\r') {
      if (c < 0) {
        throw new EOFException("Redis closed the connection");
      }
      line.append((char) c);
    }
    in.read(); // '\n'
    return line.toString();
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }
}
