"""Whether a scanner's work is linear in its input, as a ratio measured in the same run
(never a wall-clock threshold): the time for an input eight times as long, over the time for
the input itself. Linear work gives about 8; work growing with the square of the input
gives 64, and the usual backtracking blow-ups far more. :data:`LINEAR` allows for a busy
machine (two cores shared) and for caches growing with the input.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable

#: The most a linear scanner's time may grow when its input grows eightfold.
LINEAR = 24.0
#: The growth factor measured.
FACTOR = 8


def best_of(runs: int, work: Callable[[], object]) -> float:
    """The shortest of ``runs`` timings of ``work()``, in seconds, with the garbage collector
    paused (its passes grow with everything the process holds, not with the work timed)."""
    times = []
    gc.collect()
    gc.disable()
    try:
        for _ in range(runs):
            t = time.perf_counter()
            work()
            times.append(time.perf_counter() - t)
    finally:
        gc.enable()
    return min(times)


def growth(scan: Callable[[str], object], make: Callable[[int], str], n: int,
           runs: int = 3) -> float:
    """How much longer ``scan`` takes on ``make(FACTOR * n)`` than on ``make(n)`` (each the
    best of ``runs``): about :data:`FACTOR` for linear work."""
    small, large = make(n), make(FACTOR * n)
    scan(small)  # once untimed: what a first call costs (imports, caches) is not the scan's
    return best_of(runs, lambda: scan(large)) / max(best_of(runs, lambda: scan(small)), 1e-6)
