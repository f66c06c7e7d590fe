package io.refresher.http;

import io.refresher.source.SourceException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;

/**
 * Reads a response body as it streams in, never more than a limit: a value larger than {@code
 * maxValueBytes} is refused as soon as the read passes it (after at most one buffer past it), not
 * after the whole body was held in memory; and the source's deadline is checked between reads.
 */
final class BoundedBody {

  private static final int BUFFER = 8192;

  /** What was read, and whether that was the whole body. */
  record Read(byte[] bytes, boolean complete) {}

  private BoundedBody() {}

  /**
   * The whole body, of at most {@code limit} bytes.
   *
   * @param label names the source and request, for messages
   * @throws SourceException {@code VALUE_TOO_LARGE} past the limit, {@code TIMEOUT} past the deadline
   */
  static byte[] read(InputStream in, long limit, RequestDeadlines.Deadline deadline, String label)
      throws IOException, SourceException {
    ByteArrayOutputStream out = new ByteArrayOutputStream((int) Math.min(limit + 1, BUFFER));
    byte[] buffer = new byte[BUFFER];
    long total = 0;
    while (true) {
      // one byte more than the limit tells "too large" from "exactly the limit"
      int wanted = (int) Math.min(buffer.length, limit + 1 - total);
      int n = in.read(buffer, 0, wanted);
      if (n < 0) {
        return out.toByteArray();
      }
      total += n;
      if (total > limit) {
        throw new SourceException(
            SourceException.Kind.VALUE_TOO_LARGE,
            label + " answered more than the limit of " + limit + " bytes; stopped reading after " + total + " bytes");
      }
      out.write(buffer, 0, n);
      if (deadline.passed()) {
        throw new SourceException(
            SourceException.Kind.TIMEOUT, label + " timed out while its body was read (" + total + " bytes so far)");
      }
    }
  }

  /** Up to {@code max} bytes of the body (an error's body, for its message); complete when that was all of it. */
  static Read prefix(InputStream in, int max, RequestDeadlines.Deadline deadline) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream(Math.min(max, BUFFER));
    byte[] buffer = new byte[Math.min(max + 1, BUFFER)];
    int total = 0;
    while (total <= max && !deadline.passed()) {
      int n = in.read(buffer, 0, Math.min(buffer.length, max + 1 - total));
      if (n < 0) {
        return new Read(out.toByteArray(), true);
      }
      total += n;
      out.write(buffer, 0, n);
    }
    byte[] bytes = out.toByteArray();
    return new Read(bytes.length > max ? java.util.Arrays.copyOf(bytes, max) : bytes, false);
  }
}
