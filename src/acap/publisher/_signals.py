"""Signals during a publish: ``kill`` (SIGTERM) and a closed terminal (SIGHUP) stop a
publish the way Ctrl-C does, so that it rolls back (:func:`interruptible`); and none of
them stops it while staged files are being put in place (:func:`deferred`), so that the
target ends as it was or complete. Only ``kill -9`` cuts a publish anywhere; the record
written before the files go out covers that (:mod:`acap.publisher._fs`).

Python runs signal handlers in the main thread only; elsewhere (a publish run from a
worker thread) both are no-ops and the caller's own handling stands.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

_STOPS = (signal.SIGTERM, signal.SIGHUP)


class Terminated(KeyboardInterrupt):
    """SIGTERM or SIGHUP arrived during a publish (a :class:`KeyboardInterrupt`, so that
    everything that undoes work on Ctrl-C undoes it here too).

    Attributes:
        signum: the signal's number.
    """

    def __init__(self, signum: int) -> None:
        super().__init__(f"stopped by signal {signum}")
        self.signum = signum


def _main_thread() -> bool:
    return threading.current_thread() is threading.main_thread()


def _install(signals: tuple[int, ...], handler: Any) -> dict[int, Any]:
    old = {s: signal.getsignal(s) for s in signals}
    for s in signals:
        signal.signal(s, handler)
    return old


def _restore(old: dict[int, Any]) -> None:
    for s, handler in old.items():
        signal.signal(s, signal.SIG_DFL if handler is None else handler)


@contextmanager
def interruptible() -> Iterator[None]:
    """SIGTERM and SIGHUP raise :class:`Terminated` in the block (main thread only)."""
    if not _main_thread():
        yield
        return

    def stop(signum: int, _frame: object) -> None:
        raise Terminated(signum)

    old = _install(_STOPS, stop)
    try:
        yield
    finally:
        _restore(old)


@contextmanager
def deferred() -> Iterator[None]:
    """SIGINT, SIGTERM and SIGHUP are held until the block ends, then raised again to the
    handlers of the time (main thread only)."""
    if not _main_thread():
        yield
        return
    held: list[int] = []
    old = _install((signal.SIGINT, *_STOPS), lambda signum, _frame: held.append(signum))
    try:
        yield
    finally:
        _restore(old)
        if held:
            signal.raise_signal(held[0])
