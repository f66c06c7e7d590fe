/**
 * A warning logged at most once per interval, with the number left out since: when Redis is down
 * every read hits the same error, and one line says as much as thousands.
 */
export class RateLimitedWarning {
  constructor(logger, intervalMs, now = () => performance.now()) {
    this.logger = logger;
    this.intervalMs = intervalMs;
    this.now = now;
    this.nextAllowedAt = -Infinity;
    this.suppressed = 0;
  }

  warn(message, cause) {
    const now = this.now();
    if (now < this.nextAllowedAt) {
      this.suppressed++;
      return;
    }
    this.nextAllowedAt = now + this.intervalMs;
    const left = this.suppressed;
    this.suppressed = 0;
    this.logger.warn(
      `${message}: ${String(cause)}${left > 0 ? ` (${left} similar warnings not logged since the last one)` : ''}`,
    );
  }
}
