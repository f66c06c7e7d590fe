package io.refresher.embedded;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A minimal RESP2 connection to a Redis on loopback: enough for the few administrative commands
 * {@link EmbeddedRedis} sends itself (this module has no Redis client), its tests, and the
 * benchmark's commands that Redisson has no call for ({@code MEMORY USAGE ... SAMPLES 0}).
 *
 * <p>Replies: simple and bulk strings as {@code String}, integers as {@code Long}, nil as {@code
 * null}, arrays as {@code List<Object>}; an error reply is thrown as {@link ErrorReply}. A read
 * that waits longer than the timeout throws {@link java.net.SocketTimeoutException}.
 */
public final class RespConnection implements AutoCloseable {

  /** An error reply ({@code -ERR ...}) from the server. */
  public static final class ErrorReply extends IOException {
    private static final long serialVersionUID = 1L;

    ErrorReply(String message) {
      super(message);
    }
  }

  private final Socket socket;
  private final InputStream in;
  private final OutputStream out;

  private RespConnection(Socket socket) throws IOException {
    this.socket = socket;
    this.in = new BufferedInputStream(socket.getInputStream());
    this.out = socket.getOutputStream();
  }

  /** Connects to {@code 127.0.0.1:port}; connecting and every read wait at most {@code timeout}. */
  public static RespConnection open(int port, Duration timeout) throws IOException {
    Socket socket = new Socket();
    try {
      socket.setTcpNoDelay(true);
      socket.setSoTimeout(Math.toIntExact(timeout.toMillis()));
      socket.connect(new InetSocketAddress("127.0.0.1", port), Math.toIntExact(timeout.toMillis()));
      return new RespConnection(socket);
    } catch (IOException | RuntimeException e) {
      socket.close();
      throw e;
    }
  }

  /** Sends one command and reads its reply. */
  public Object call(String... args) throws IOException {
    send(args);
    return read();
  }

  /** Sends every command, then reads every reply, in order: one round trip for all of them. */
  public List<Object> pipeline(List<String[]> commands) throws IOException {
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

  /** Sends one command without reading its reply. */
  public void send(String... args) throws IOException {
    out.write(encode(args));
    out.flush();
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

  /** Reads the next reply; {@link EOFException} if the server closed the connection. */
  public Object read() throws IOException {
    int type = in.read();
    if (type < 0) {
      throw new EOFException("Redis closed the connection");
    }
    String line = readLine();
    switch (type) {
      case '+':
        return line;
      case '-':
        throw new ErrorReply(line);
      case ':':
        return Long.parseLong(line);
      case '$':
        {
          int length = Integer.parseInt(line);
          if (length < 0) {
            return null;
          }
          byte[] bytes = in.readNBytes(length);
          if (bytes.length < length) {
            throw new EOFException("Redis closed the connection in a bulk string");
          }
          readLine();
          return new String(bytes, StandardCharsets.UTF_8);
        }
      case '*':
        {
          int count = Integer.parseInt(line);
          if (count < 0) {
            return null;
          }
          List<Object> items = new ArrayList<>(count);
          for (int i = 0; i < count; i++) {
            try {
              items.add(read());
            } catch (ErrorReply e) {
              items.add(e);
            }
          }
          return items;
        }
      default:
        throw new IOException("not a RESP reply: type byte " + type);
    }
  }

  private String readLine() throws IOException {
    ByteArrayOutputStream line = new ByteArrayOutputStream();
    while (true) {
      int b = in.read();
      if (b < 0) {
        throw new EOFException("Redis closed the connection in a reply");
      }
      if (b == '\r') {
        if (in.read() != '\n') {
          throw new IOException("malformed RESP line");
        }
        return line.toString(StandardCharsets.UTF_8);
      }
      line.write(b);
    }
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }
}
