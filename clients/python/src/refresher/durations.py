"""Durations given as ``datetime.timedelta`` or as seconds (int or float)."""

import math
from datetime import timedelta
from typing import Union

Duration = Union[timedelta, int, float]


def seconds(value: Duration, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (timedelta, int, float)):
        raise TypeError(f"{name} must be a datetime.timedelta or a number of seconds, was {value!r}")
    result = value.total_seconds() if isinstance(value, timedelta) else float(value)
    if math.isnan(result) or math.isinf(result):
        raise ValueError(f"{name} must be finite, was {value!r}")
    return result


def millis(value: Duration, name: str) -> int:
    """Whole milliseconds, cut as Java's Duration.toMillis() cuts them."""
    return int(seconds(value, name) * 1000)


def positive_seconds(value: Duration, name: str) -> float:
    result = seconds(value, name)
    if result <= 0:
        raise ValueError(f"{name} must be positive, was {value!r}")
    return result
