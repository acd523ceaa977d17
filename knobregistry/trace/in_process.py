"""`pytest --knobs-trace`: the test session's own reads, traced in-process (Python level).

The session's process records its reads as a traced run's processes do; at the end,
the reads made by code under the root folder (the project and its tests, not pytest,
the standard library or installed packages) that the registry does not know (neither a
knob nor an external entry) are reported.
"""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from knobregistry.registry import Registry
from knobregistry.trace import python_hook
from knobregistry.trace.model import Read
from knobregistry.trace.records import collect


@dataclass(frozen=True, slots=True)
class Unknown:
    """A variable the session's code read that the registry does not know."""

    name: str
    path: str  # the first site, relative to the root folder
    line: int | None


class SessionTrace:
    """Trace this process between :meth:`start` and :meth:`finish`."""

    def __init__(self) -> None:
        self.folder: Path | None = None

    def start(self) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix="knobs-pytest-trace-"))
        python_hook.start(str(self.folder))

    def finish(
        self, root: Path, registry: Registry | None
    ) -> tuple[tuple[Read, ...], list[Unknown]]:
        """Stop tracing; every read, and those of code under ``root`` the registry
        does not know."""
        if self.folder is None:
            return (), []
        python_hook.stop()
        try:
            reads = collect(self.folder).reads
        finally:
            shutil.rmtree(self.folder, ignore_errors=True)
            self.folder = None
        known = set(registry.knobs) | set(registry.external) if registry is not None else set()
        base = root.resolve()
        unknown: dict[str, Unknown] = {}
        for read in reads:
            if read.name in known or read.name in unknown:
                continue
            for site in read.sites:
                local = _under(site.path, base)
                if local is not None:
                    unknown[read.name] = Unknown(read.name, local, site.line)
                    break
        return reads, [unknown[name] for name in sorted(unknown)]


def _under(path: str, base: Path) -> str | None:
    """``path`` relative to ``base`` when it is a file there (and not in a virtual
    environment); code with no file (``<frozen posixpath>``, ``<string>``) is not."""
    if not Path(path).is_absolute():
        return None
    try:
        relative = Path(path).resolve().relative_to(base)
    except (ValueError, OSError):
        return None
    if any(part in ("site-packages", "dist-packages") for part in relative.parts):
        return None
    return relative.as_posix()
