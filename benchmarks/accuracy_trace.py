"""Record every environment variable a pinned triton asks for: the runtime ground truth.

    PYTHONPATH=ROOT python benchmarks/accuracy_trace.py ROOT

Run by ``accuracy.py`` in a subprocess whose ``PYTHONPATH`` is an extracted triton
wheel (ROOT). Before triton is imported it replaces the class of ``os.environ``
with one that records each name asked for (``get``, ``[]``, ``in``, and reads of
a ``copy()``), and wraps ``getenv`` and ``getenv_bool`` of the compiled
``triton._C.libtriton`` as that module loads: ``triton/knobs.py`` reads through
them and they never touch ``os.environ``. Then, in steps, it imports triton,
reads every knob of every namespace in ``triton.knobs``, and asks for the
active driver, as every kernel launch does. Prints one JSON object: the file
triton was imported from, and each name read with the step that first read it
and where in ROOT (``path:line``): the frame whose line spells the name, else
the knob's declaration, else the innermost frame there.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.abc
import importlib.machinery
import inspect
import json
import linecache
import os
import re
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import FrameType, ModuleType
from typing import Any

COMPILED = "triton._C.libtriton"
ACCESSORS = ("getenv", "getenv_bool")


@dataclass
class Read:
    """The first read of one name: the step it happened in, and where in ROOT."""

    step: str
    spelled: str | None  # the innermost frame in ROOT whose line spells the name
    read: str | None  # the innermost frame in ROOT


class Recorder:
    """The names read so far, and the state that says how to place the next one."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.step = "import"
        self.declarations: dict[str, str] = {}  # a knob's name -> where it is declared
        self.quiet = False
        self.reads: dict[str, Read] = {}

    def note(self, name: object) -> None:
        if self.quiet or not isinstance(name, str) or name in self.reads:
            return
        frames = self._frames(sys._getframe(1))
        quoted = re.compile(rf"[\"']{re.escape(name)}[\"']")
        spelled = next((f for f in frames if quoted.search(_line(f))), None)
        self.reads[name] = Read(self.step, spelled, frames[0] if frames else None)

    def where(self, name: str) -> str | None:
        """The line that spells the name, else the knob's declaration, else the read."""
        read = self.reads[name]
        return read.spelled or self.declarations.get(name) or read.read

    def place(self, path: str, line: int) -> str | None:
        relative = Path(path)
        if not relative.is_relative_to(self.root):
            return None
        return f"{relative.relative_to(self.root).as_posix()}:{line}"

    def _frames(self, frame: FrameType | None) -> list[str]:
        frames = []
        while frame is not None:
            where = self.place(frame.f_code.co_filename, frame.f_lineno)
            if where is not None:
                frames.append(where)
            frame = frame.f_back
        return frames


def _line(where: str) -> str:
    path, _, line = where.rpartition(":")
    return linecache.getline(str(RECORDER.root / path), int(line))


RECORDER = Recorder(Path.cwd())


class RecordingDict(dict[str, str]):
    """A copy of the environment that records the names read from it."""

    def __getitem__(self, key: str) -> str:
        RECORDER.note(key)
        return super().__getitem__(key)

    def __contains__(self, key: object) -> bool:
        RECORDER.note(key)
        return super().__contains__(key)

    def get(self, key: str, default: Any = None) -> Any:
        RECORDER.note(key)
        return super().get(key, default)


class RecordingEnviron(os._Environ[str]):
    """``os.environ`` that records each name asked for."""

    def __getitem__(self, key: str) -> str:
        RECORDER.note(key)
        return super().__getitem__(key)

    def __contains__(self, key: object) -> bool:
        RECORDER.note(key)
        return super().__contains__(key)

    def copy(self) -> dict[str, str]:
        RECORDER.quiet = True
        try:
            return RecordingDict(super().items())
        finally:
            RECORDER.quiet = False


def _recording(function: Callable[..., Any]) -> Callable[..., Any]:
    def accessor(name: str, *args: Any) -> Any:
        RECORDER.note(name)
        return function(name, *args)

    return accessor


class WrappingLoader(importlib.abc.Loader):
    """Loads the compiled module, then wraps its environment accessors."""

    def __init__(self, inner: importlib.abc.Loader) -> None:
        self.inner = inner

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        return self.inner.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        self.inner.exec_module(module)
        for name in ACCESSORS:
            setattr(module, name, _recording(getattr(module, name)))


class CompiledHook(importlib.abc.MetaPathFinder):
    """Hands ``triton._C.libtriton`` a loader that wraps its accessors."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname != COMPILED:
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path, target)
        if spec is not None and spec.loader is not None:
            spec.loader = WrappingLoader(spec.loader)
        return spec


def _declaration(cls: type, attribute: str) -> str | None:
    """Where ``cls`` declares ``attribute``: the line ``attribute: ... = ...`` of its body."""
    try:
        lines, start = inspect.getsourcelines(cls)
        path = inspect.getsourcefile(cls)
    except (OSError, TypeError):
        return None
    for offset, text in enumerate(lines):
        if path is not None and re.match(rf"\s+{attribute}\s*[:=]", text):
            return RECORDER.place(path, start + offset)
    return None


def _read_knobs() -> None:
    knobs = importlib.import_module("triton.knobs")
    for namespace in list(vars(knobs).values()):
        if not isinstance(namespace, knobs.base_knobs):
            continue
        for attribute, descriptor in namespace.knob_descriptors.items():
            declared = _declaration(type(namespace), attribute)
            if declared is not None:
                RECORDER.declarations.setdefault(descriptor.key, declared)
            with contextlib.suppress(Exception):  # a missing tool raises after its read
                getattr(namespace, attribute)


def _ask_for_driver() -> None:
    driver = importlib.import_module("triton.runtime.driver")
    with contextlib.suppress(Exception):  # no device here: it raises after its read
        driver.driver.active  # noqa: B018 - the property creates the driver


def main() -> int:
    RECORDER.root = Path(sys.argv[1]).resolve()
    os.environ.__class__ = RecordingEnviron
    sys.meta_path.insert(0, CompiledHook())
    triton = importlib.import_module("triton")
    RECORDER.step = "knobs"
    _read_knobs()
    RECORDER.step = "driver"
    _ask_for_driver()
    reads = [
        {"name": name, "step": read.step, "where": RECORDER.where(name), "read": read.read}
        for name, read in sorted(RECORDER.reads.items())
    ]
    json.dump({"file": triton.__file__, "reads": reads}, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
