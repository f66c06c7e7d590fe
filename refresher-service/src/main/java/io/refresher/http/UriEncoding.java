package io.refresher.http;

import java.nio.charset.StandardCharsets;

/**
 * Percent-encoding of parameter values for a URI (RFC 3986), stricter than any encoder that knows
 * a component's grammar: everything but the unreserved characters ({@code ALPHA DIGIT - . _ ~}) is
 * encoded, as UTF-8 bytes in upper-case hex. So a value can never add a path segment ({@code /}),
 * start a query ({@code ?}) or a fragment ({@code #}), add a query parameter ({@code & =}), read as
 * a space ({@code +}), or pass an escape through ({@code %2F} is sent as {@code %252F}): it stays
 * inside the segment or value its placeholder stands in. The one thing encoding the characters
 * cannot stop is a segment that is {@code .} or {@code ..} as a whole, which servers and proxies
 * resolve; {@link #dotSegment} covers it.
 */
final class UriEncoding {

  private static final char[] HEX = "0123456789ABCDEF".toCharArray();

  private UriEncoding() {}

  /** {@code value} with every character but {@code ALPHA DIGIT - . _ ~} percent-encoded (UTF-8). */
  static String encode(String value) {
    StringBuilder out = null;
    for (int i = 0; i < value.length(); i++) {
      if (!unreserved(value.charAt(i))) {
        out = new StringBuilder(value.length() + 16).append(value, 0, i);
        appendEncoded(out, value.substring(i));
        return out.toString();
      }
    }
    return value;
  }

  private static void appendEncoded(StringBuilder out, String rest) {
    byte[] bytes = rest.getBytes(StandardCharsets.UTF_8);
    for (byte b : bytes) {
      char c = (char) (b & 0xFF);
      if (c < 0x80 && unreserved(c)) {
        out.append(c);
      } else {
        out.append('%').append(HEX[(b >> 4) & 0xF]).append(HEX[b & 0xF]);
      }
    }
  }

  static boolean unreserved(char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')
        || c == '-' || c == '.' || c == '_' || c == '~';
  }

  /**
   * A path segment that would read as {@code .} or {@code ..}, with its dots encoded ({@code %2E}):
   * sent as-is, {@code /items/{id}} with {@code id=..} would name {@code /} on the server. Any other
   * segment is returned as it is.
   */
  static String dotSegment(String segment) {
    if (segment.equals(".") || segment.equals("..")) {
      return segment.replace(".", "%2E");
    }
    return segment;
  }
}
