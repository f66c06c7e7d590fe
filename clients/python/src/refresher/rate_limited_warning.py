"""A WARNING logged at most once per interval, with the number left out since: when Redis is
down every read hits the same error, and one line says as much as thousands."""

import logging
import threading
import time


class RateLimitedWarning:
    def __init__(self, log: logging.Logger, interval_seconds: float):
        self._log = log
        self._interval = interval_seconds
        self._next_allowed_at = time.monotonic()
        self._suppressed = 0
        self._lock = threading.Lock()

    def warn(self, message: str, cause: BaseException) -> None:
        with self._lock:
            now = time.monotonic()
            if now < self._next_allowed_at:
                self._suppressed += 1
                return
            self._next_allowed_at = now + self._interval
            left, self._suppressed = self._suppressed, 0
        suffix = f" ({left} similar warnings not logged since the last one)" if left else ""
        self._log.warning("%s: %r%s", message, cause, suffix)
