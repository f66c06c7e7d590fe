"""Probabilistic early recomputation, "XFetch" (Vattani, Chierichetti, Lowenstein: Optimal
Probabilistic Cache Stampede Prevention, VLDB 2015).

Recompute when ``now - delta * beta * ln(rand()) >= expiry``, ``rand()`` uniform in (0, 1]. With
``r = expiry - now`` left, that happens with probability ``exp(-r / (delta * beta))``: certain at
expiry, 37 % one ``delta * beta`` before, 5 % three before. So usually exactly one reader
recomputes, shortly before expiry, and nobody waits.
"""

import math
import random as random_module
import threading
from typing import Optional

DEFAULT_BETA = 1.0


def decide(now_millis: int, delta_millis: int, expires_at_millis: int, beta: float, uniform: float) -> bool:
    """The decision for one draw ``uniform`` in (0, 1]; every client computes exactly this
    (protocol/vectors/xfetch.json)."""
    return now_millis - delta_millis * beta * math.log(uniform) >= expires_at_millis


def checked_beta(beta) -> float:
    if isinstance(beta, bool) or not isinstance(beta, (int, float)) or not beta > 0 or math.isinf(beta):
        raise ValueError(f"beta must be a positive number, was {beta!r}")
    return float(beta)


class EarlyRecompute:
    """XFetch with a given beta and source of randomness (anything with ``random()`` in [0, 1),
    such as a seeded ``random.Random``; by default the ``random`` module's own generator)."""

    def __init__(self, beta: float = DEFAULT_BETA, random: Optional[random_module.Random] = None):
        self.beta = checked_beta(beta)
        self._random = random
        # A given generator is used under a lock, as in Java (a seeded one need not be thread-safe).
        self._lock = threading.Lock()

    def should_recompute(self, now_millis: int, delta_millis: int, expires_at_millis: int) -> bool:
        # 1 - [0, 1) is (0, 1]: never ln(0).
        return decide(now_millis, delta_millis, expires_at_millis, self.beta, 1.0 - self._next())

    def _next(self) -> float:
        if self._random is None:
            return random_module.random()
        with self._lock:
            return self._random.random()
