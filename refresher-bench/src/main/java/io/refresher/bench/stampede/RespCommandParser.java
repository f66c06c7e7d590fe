package io.refresher.bench.stampede;

import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.function.Consumer;

/**
 * Finds the commands in a client's byte stream to Redis (RESP arrays of bulk strings, or inline
 * commands), however the stream is split into reads, and reports each command's name.
 */
final class RespCommandParser {

  private static final int NAME_LIMIT = 32;

  private final Consumer<String> onCommand;
  private final StringBuilder line = new StringBuilder();
  private boolean inBody;
  private boolean expectingBulkHeader;
  private long remainingBulks;
  private long bodyLength;
  private long bodyPosition;
  private byte[] name;
  private int nameLength;
  private boolean capturingName;

  RespCommandParser(Consumer<String> onCommand) {
    this.onCommand = onCommand;
  }

  void feed(byte[] buffer, int length) {
    int i = 0;
    while (i < length) {
      if (inBody) {
        long left = bodyLength + 2 - bodyPosition;
        int take = (int) Math.min(left, length - i);
        if (capturingName) {
          for (int k = 0; k < take; k++) {
            long position = bodyPosition + k;
            if (position < bodyLength && nameLength < NAME_LIMIT) {
              name[nameLength++] = buffer[i + k];
            }
          }
        }
        bodyPosition += take;
        i += take;
        if (bodyPosition == bodyLength + 2) {
          inBody = false;
          capturingName = false;
          if (--remainingBulks == 0) {
            emit();
          } else {
            expectingBulkHeader = true;
          }
        }
        continue;
      }
      byte b = buffer[i++];
      if (b == '\n') {
        onLine();
        line.setLength(0);
      } else if (b != '\r' && line.length() < 64) {
        line.append((char) b);
      }
    }
  }

  private void onLine() {
    if (line.length() == 0) {
      return;
    }
    char kind = line.charAt(0);
    if (expectingBulkHeader) {
      if (kind == '$') {
        bodyLength = Long.parseLong(line, 1, line.length(), 10);
        bodyPosition = 0;
        inBody = true;
        expectingBulkHeader = false;
        capturingName = name == null;
        if (capturingName) {
          name = new byte[NAME_LIMIT];
          nameLength = 0;
        }
      }
      return;
    }
    if (kind == '*') {
      remainingBulks = Long.parseLong(line, 1, line.length(), 10);
      name = null;
      if (remainingBulks > 0) {
        expectingBulkHeader = true;
      }
      return;
    }
    // An inline command: its first word is the name.
    String text = line.toString().strip();
    int space = text.indexOf(' ');
    onCommand.accept((space < 0 ? text : text.substring(0, space)).toLowerCase(Locale.ROOT));
  }

  private void emit() {
    String command = name == null ? "?" : new String(name, 0, nameLength, StandardCharsets.UTF_8);
    name = null;
    onCommand.accept(command.toLowerCase(Locale.ROOT));
  }
}
