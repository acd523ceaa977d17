"""Steps that can take seconds announce themselves; the CLI decides whether anyone sees them.

Library code wraps a slow step in ``with step("scanning src"):``. Nothing is shown
unless a command installed a reporter with :func:`reporting` (``knobs check`` does,
when standard error is a terminal): libraries never print.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from contextvars import ContextVar

Reporter = Callable[[str], AbstractContextManager[object]]

_REPORTER: ContextVar[Reporter | None] = ContextVar("knobs_progress", default=None)


def step(label: str) -> AbstractContextManager[object]:
    """A context for one slow step, shown by the installed reporter (if any)."""
    reporter = _REPORTER.get()
    return reporter(label) if reporter is not None else nullcontext()


@contextmanager
def reporting(reporter: Reporter | None) -> Iterator[None]:
    """Show the steps run inside this block with ``reporter`` (None: show nothing)."""
    token = _REPORTER.set(reporter)
    try:
        yield
    finally:
        _REPORTER.reset(token)


def terminal_reporter() -> Reporter | None:
    """A transient spinner on standard error when it is a terminal; None otherwise."""
    from rich.console import Console

    console = Console(stderr=True, highlight=False)
    if not console.is_terminal:
        return None

    def show(label: str) -> AbstractContextManager[object]:
        return console.status(f"knobs: {label}...", spinner="dots")

    return show
