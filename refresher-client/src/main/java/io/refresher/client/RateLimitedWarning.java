package io.refresher.client;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;

/**
 * A WARN that is logged at most once per interval, with the number left out since: when Redis is
 * down every read hits the same error, and one line says as much as thousands.
 */
final class RateLimitedWarning {

  private final Logger log;
  private final long intervalNanos;
  private final AtomicLong nextAllowedAt;
  private final AtomicLong suppressed = new AtomicLong();

  RateLimitedWarning(Logger log, Duration interval) {
    this.log = log;
    this.intervalNanos = interval.toNanos();
    this.nextAllowedAt = new AtomicLong(System.nanoTime());
  }

  void warn(String message, Throwable cause) {
    long now = System.nanoTime();
    long allowedAt = nextAllowedAt.get();
    if (now - allowedAt < 0 || !nextAllowedAt.compareAndSet(allowedAt, now + intervalNanos)) {
      suppressed.incrementAndGet();
      return;
    }
    long left = suppressed.getAndSet(0);
    log.warn(
        "{}: {}{}",
        message,
        String.valueOf(cause),
        left > 0 ? " (" + left + " similar warnings not logged since the last one)" : "");
  }
}
