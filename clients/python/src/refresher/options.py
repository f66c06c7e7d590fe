"""The options both clients take, checked once (defaults of the Java client's builder)."""

from dataclasses import dataclass
from typing import Optional

from refresher import durations

DEFAULT_SINGLE_FLIGHT_LEASE = 10.0
DEFAULT_WAIT_FOR_OTHER_LOADER = 1.0
DEFAULT_POLL_INTERVAL = 0.02
#: How often a WARNING about Redis failing may be logged.
WARNING_INTERVAL = 30.0


@dataclass(frozen=True)
class FlightOptions:
    lease_millis: int
    wait_for_other_loader: float
    poll_interval: float

    @staticmethod
    def of(single_flight_lease, wait_for_other_loader, poll_interval) -> "FlightOptions":
        lease_millis = int(durations.positive_seconds(single_flight_lease, "single_flight_lease") * 1000)
        if lease_millis < 1:
            raise ValueError(f"single_flight_lease must be at least 1 ms, was {single_flight_lease!r}")
        wait = durations.seconds(wait_for_other_loader, "wait_for_other_loader")
        if wait < 0:
            raise ValueError(f"wait_for_other_loader must not be negative, was {wait_for_other_loader!r}")
        poll = durations.positive_seconds(poll_interval, "poll_interval")
        return FlightOptions(lease_millis, wait, poll)


def ttl_millis(ttl) -> int:
    millis = durations.millis(ttl, "ttl")
    if millis < 1:
        raise ValueError(f"ttl must be at least 1 ms, was {ttl!r}")
    return millis


def checked_value(key: str, value) -> Optional[str]:
    if value is not None and not isinstance(value, str):
        raise TypeError(f"the loader of key '{key}' must return a str or None, returned {type(value).__name__}")
    return value

