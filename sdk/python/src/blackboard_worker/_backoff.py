"""Jittered exponential backoff, used on errors only and reset on success."""

from __future__ import annotations

import random
from typing import Callable, Optional


class Backoff:
    """Full jitter: the n-th delay is uniform in [0, min(cap, base * 2**n)].

    A server's ``Retry-After`` replaces the computed delay (plus up to 10 % so that many workers told
    the same number do not come back in the same millisecond).
    """

    def __init__(self, base: float = 0.5, cap: float = 30.0, rng: Callable[[], float] = random.random) -> None:
        self.base = base
        self.cap = cap
        self.failures = 0
        self._rng = rng

    def next_delay(self, retry_after: Optional[float] = None) -> float:
        self.failures += 1
        if retry_after is not None:
            return retry_after + retry_after * 0.1 * self._rng()
        ceiling = min(self.cap, self.base * (2 ** min(self.failures - 1, 30)))
        return ceiling * self._rng()

    def reset(self) -> None:
        self.failures = 0
