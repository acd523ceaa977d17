"""Signals that end a triage: Ctrl-C, SIGTERM and SIGHUP all stop every run, then exit.

Within ``interruptible()``, the first of these signals raises Interrupted (a
KeyboardInterrupt, so every `except KeyboardInterrupt` path handles all three);
later ones are ignored, so that stopping the runs is not itself interrupted.
SIGKILL cannot be caught: the runs of a triage killed that way keep running in
their own process groups; `knobs triage --resume DIR` stops those its journal says it
started (leftovers.py).
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from types import FrameType
from typing import Any

_HANDLED = tuple(
    getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name)
)


class Interrupted(KeyboardInterrupt):
    """A signal that ends the triage; ``signum`` says which."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def exit_status(exc: BaseException) -> int:
    """128 + the signal's number: 130 for Ctrl-C, 143 for SIGTERM, 129 for SIGHUP."""
    signum = exc.signum if isinstance(exc, Interrupted) else signal.SIGINT
    return 128 + int(signum)


class _Handler:
    def __init__(self) -> None:
        self.fired = False

    def __call__(self, signum: int, frame: FrameType | None) -> None:
        if self.fired:
            return
        self.fired = True
        raise Interrupted(signum)


@contextlib.contextmanager
def interruptible() -> Iterator[None]:
    """Within: SIGINT, SIGTERM and SIGHUP raise Interrupted once (main thread only)."""
    previous: dict[int, Any] = {}
    if threading.current_thread() is threading.main_thread():
        handler = _Handler()
        for signum in _HANDLED:
            if signal.getsignal(signum) is not signal.SIG_IGN:
                previous[signum] = signal.signal(signum, handler)
    try:
        yield
    finally:
        for signum, old in previous.items():
            signal.signal(signum, old)
