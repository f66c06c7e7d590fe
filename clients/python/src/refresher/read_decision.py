"""What ``get(key, ttl, loader)`` does with what it read: the same for every client (protocol/vectors)."""

import enum
from dataclasses import dataclass
from typing import Callable, Optional

from .protocol.not_found import is_not_found


@dataclass(frozen=True)
class StoredValue:
    """A key's value and the metadata fields early recomputation needs, read in one round trip
    with Redis's time (``read_at_millis``). The numbers are None when absent or unreadable."""

    value: Optional[str]
    delta_millis: Optional[int]
    expires_at_millis: Optional[int]
    epoch: int
    read_at_millis: int

    @property
    def present(self) -> bool:
        return self.value is not None

    @property
    def written_by_service(self) -> bool:
        """The service's writes carry an epoch of 1 or more; a client's carry 0."""
        return self.epoch > 0

    @property
    def has_timing(self) -> bool:
        return self.delta_millis is not None and self.expires_at_millis is not None


class ReadDecision(enum.Enum):
    #: Return the stored value.
    SERVE = "SERVE"
    #: A client's value that XFetch says to recompute now: one caller does, the others are served.
    RECOMPUTE_EARLY = "RECOMPUTE_EARLY"
    #: A value of the service's past its logical expiry (it stopped refreshing it): one caller recomputes.
    RECOMPUTE_EXPIRED = "RECOMPUTE_EXPIRED"
    #: No value: load it, once across threads and processes.
    LOAD = "LOAD"
    #: The service's not-found marker before its expiry: the key is known to have no value.
    #: Return None; load nothing.
    ABSENT = "ABSENT"

    @staticmethod
    def of(stored: StoredValue, should_recompute: Callable[[int, int, int], bool]) -> "ReadDecision":
        if not stored.present:
            return ReadDecision.LOAD
        # Redis's clock, not ours: expiresAt is on it, and ours may be seconds off.
        now = stored.read_at_millis
        if is_not_found(stored.value) and (stored.expires_at_millis is None or now < stored.expires_at_millis):
            return ReadDecision.ABSENT
        if stored.written_by_service:
            # The service recomputes its keys before expiry; only a value it gave up on is ours to redo.
            if stored.expires_at_millis is None or now < stored.expires_at_millis:
                return ReadDecision.SERVE
            return ReadDecision.RECOMPUTE_EXPIRED
        if stored.has_timing and should_recompute(now, stored.delta_millis, stored.expires_at_millis):
            return ReadDecision.RECOMPUTE_EARLY
        return ReadDecision.SERVE
