"""knobs trace, Python level: copied as `sitecustomize.py` onto a PYTHONPATH entry of the run.

Every Python process of the traced tree imports it at start-up (before user code), and
it turns ``os.environ`` into a subclass that records reads: ``[]``, ``get`` (so
``os.getenv``), ``in``, and reads of a ``.copy()``. Iterating the environment
(``dict(os.environ)``, ``items()``, ``{**os.environ}``) is recorded as a copy at its
site, not as a read of every variable. ``setdefault`` and ``pop`` are writes.

Records go to a file of this process's own, ``$KNOBS_TRACE_DIR/py-<pid>-<token>.jsonl``,
one whole JSON line per ``os.write`` on an O_APPEND descriptor: the first read of each
(name, value, site) at once, so a killed process still leaves every name it read; the
counts of repeated reads at exit, before ``os._exit`` and before ``os.exec*``. A forked
child starts a file of its own. Standard library only: the traced interpreter need not
have knobregistry installed. Secret-looking names keep only "set".
"""

# os.path, not pathlib: this runs at the start of every traced process, and pathlib's
# import would cost each of them more than the hook itself.
# ruff: noqa: PTH100, PTH109, PTH112, PTH117, PTH118, PTH120, SIM105

from __future__ import annotations

import atexit
import os
import sys
import threading
from collections.abc import Callable, Iterator, Mapping
from types import FrameType
from typing import Any

DIR_VARIABLE = "KNOBS_TRACE_DIR"
SECRET_WORDS = ("TOKEN", "KEY", "SECRET", "PASSWORD")
STACK_DEPTH = 8  # outer frames kept with a first read, to match dynamic reads of a scan

_Key = tuple[str, str, str, str, int]  # name, state (v, u, s), value, path, line
_local = threading.local()
_lock = threading.RLock()
_counts: dict[_Key, int] = {}
_written: dict[_Key, int] = {}
_ids: dict[_Key, int] = {}
_copies: dict[tuple[str, int], int] = {}
_copies_written: dict[tuple[str, int], int] = {}
_fd = -1
_directory = ""


def _skipped_files() -> frozenset[str]:
    """The files whose frames are never a read's site: os, collections.abc, this hook."""
    return frozenset(
        {
            os.getenv.__code__.co_filename,
            Mapping.get.__code__.co_filename,
            _skipped_files.__code__.co_filename,
        }
    )


_SKIPPED = _skipped_files()


def secret(name: str) -> bool:
    """Whether ``name`` matches *TOKEN*, *KEY*, *SECRET* or *PASSWORD*, in any case."""
    upper = name.upper()
    return any(word in upper for word in SECRET_WORDS)


def _path(filename: str) -> str:
    if filename.startswith("<") or os.path.isabs(filename):
        return filename
    return os.path.join(os.getcwd(), filename)


def _caller() -> FrameType | None:
    frame: FrameType | None = sys._getframe(1)
    while frame is not None and frame.f_code.co_filename in _SKIPPED:
        frame = frame.f_back
    return frame


def _stack(frame: FrameType | None) -> list[list[object]]:
    out: list[list[object]] = []
    while frame is not None and len(out) < STACK_DEPTH:
        name = frame.f_code.co_filename
        if name not in _SKIPPED and not name.startswith("<frozen "):
            out.append([_path(name), frame.f_lineno])
        frame = frame.f_back
    return out


def _emit(payload: dict[str, object]) -> None:
    global _fd
    import json

    if _fd < 0:
        token = os.urandom(4).hex()
        target = os.path.join(_directory, f"py-{os.getpid()}-{token}.jsonl")
        flags = os.O_WRONLY | os.O_CREAT | os.O_APPEND | getattr(os, "O_CLOEXEC", 0)
        _fd = os.open(target, flags, 0o600)
    data = (json.dumps(payload, sort_keys=True) + "\n").encode("utf-8", "backslashreplace")
    view = memoryview(data)
    while view:
        view = view[os.write(_fd, view) :]


def _emit_quietly(payload: dict[str, object]) -> None:
    try:
        _emit(payload)
    except OSError:
        pass  # the folder is gone: the run goes on untraced


def _in_copy(frame: FrameType) -> bool:
    """Whether ``frame`` is still at the instruction that iterates the environment
    (``dict(os.environ)`` fetching each value, a ``for k, v in ....items()`` step)."""
    bulk = getattr(_local, "bulk", None)
    if bulk is not None and bulk[0] is frame and frame.f_lasti == bulk[1]:
        return True
    _local.bulk = None
    return False


def _record(name: object, value: str | None) -> None:
    """Count one read of ``name``; the first of its kind is written at once."""
    if not isinstance(name, str) or getattr(_local, "busy", False):
        return
    _local.busy = True
    try:
        frame = _caller()
        if frame is None or _in_copy(frame):
            return
        state = "u" if value is None else ("s" if secret(name) else "v")
        path = _path(frame.f_code.co_filename)
        shown = value if state == "v" and value is not None else ""
        key: _Key = (name, state, shown, path, frame.f_lineno)
        with _lock:
            seen = _counts.get(key, 0)
            _counts[key] = seen + 1
            if seen == 0:
                _ids[key] = len(_ids)
                _written[key] = 1
                _emit(
                    {
                        "id": _ids[key],
                        "name": name,
                        "state": state,
                        "value": shown if state == "v" else None,
                        "path": path,
                        "line": key[4],
                        "stack": _stack(frame.f_back),
                    }
                )
    except OSError:
        pass  # the folder is gone: the run goes on untraced
    finally:
        _local.busy = False


def _record_copy() -> None:
    """Count one iteration of the environment at its site; its values are no reads."""
    if getattr(_local, "busy", False):
        return
    frame = _caller()
    if frame is None:
        return
    _local.bulk = (frame, frame.f_lasti)
    site = (_path(frame.f_code.co_filename), frame.f_lineno)
    with _lock:
        seen = _copies.get(site, 0)
        _copies[site] = seen + 1
        if seen == 0:
            _copies_written[site] = 1
            _emit_quietly({"copy": [site[0], site[1]]})


def flush() -> None:
    """Write the counts of repeated reads and copies since the last flush."""
    with _lock:
        try:
            for key, count in _counts.items():
                if count > _written[key]:
                    _emit({"id": _ids[key], "more": count - _written[key]})
                    _written[key] = count
            for site, count in _copies.items():
                if count > _copies_written[site]:
                    _emit({"copy": [site[0], site[1]], "more": count - _copies_written[site]})
                    _copies_written[site] = count
        except OSError:
            pass


def _after_fork_in_child() -> None:
    global _fd, _lock
    _lock = threading.RLock()
    _fd = -1
    for table in (_counts, _written, _ids, _copies, _copies_written):
        table.clear()


# The recording methods, shared by the environment and its copies (functions, not a
# mixin base: os.environ's class can change only to a subclass of the same layout).


_MISSING = object()


def _lookup(self: Any, key: Any) -> Any:
    """The value of ``key`` (``_MISSING`` when unset), its read recorded either way."""
    try:
        value = self._raw(key)
    except KeyError:
        _record(key, None)
        return _MISSING
    _record(key, value)
    return value


def _getitem(self: Any, key: Any) -> Any:
    value = _lookup(self, key)
    if value is _MISSING:
        raise KeyError(key) from None
    return value


def _get(self: Any, key: Any, default: Any = None) -> Any:
    value = _lookup(self, key)
    return default if value is _MISSING else value


def _contains(self: Any, key: object) -> bool:
    return _lookup(self, key) is not _MISSING


class TracedCopy(dict):  # type: ignore[type-arg]
    """What ``os.environ.copy()`` returns: a dict whose reads are recorded too."""

    __getitem__ = _getitem
    get = _get
    __contains__ = _contains

    def _raw(self, key: Any) -> Any:
        return dict.__getitem__(self, key)

    def copy(self) -> TracedCopy:
        return TracedCopy(self)


class TracedEnviron(os._Environ):  # type: ignore[type-arg]
    """``os.environ``'s class while traced; the object itself stays the same."""

    __getitem__ = _getitem
    get = _get
    __contains__ = _contains

    def _raw(self, key: Any) -> Any:
        return os._Environ.__getitem__(self, key)

    def __iter__(self) -> Iterator[Any]:
        _record_copy()
        yield from os._Environ.__iter__(self)

    def copy(self) -> TracedCopy:
        return TracedCopy(self)

    def setdefault(self, key: Any, value: Any = None) -> Any:
        try:
            return self._raw(key)
        except KeyError:
            self[key] = value
            return value

    def pop(self, key: Any, *default: Any) -> Any:
        try:
            value = self._raw(key)
        except KeyError:
            if default:
                return default[0]
            raise
        del self[key]
        return value


def _flushing(function: Callable[..., Any]) -> Callable[..., Any]:
    def call(*args: Any, **kwargs: Any) -> Any:
        flush()
        return function(*args, **kwargs)

    call.__name__ = function.__name__
    call.__doc__ = function.__doc__
    return call


def start(directory: str) -> None:
    """Trace this process from now on into ``directory`` (the pytest plugin's in-process
    trace; a traced run's processes use :func:`install`)."""
    global _directory
    _directory = directory
    os.environ.__class__ = TracedEnviron


def stop() -> None:
    """Write the last counts and stop tracing this process."""
    global _fd
    flush()
    os.environ.__class__ = os._Environ
    if _fd >= 0:
        os.close(_fd)
        _fd = -1


def install() -> None:
    """Trace this process when ``KNOBS_TRACE_DIR`` names a folder, then run the next
    sitecustomize on sys.path, if there is one."""
    directory = os.environ.get(DIR_VARIABLE, "")
    if directory and os.path.isdir(directory):
        start(directory)
        atexit.register(flush)
        os.register_at_fork(after_in_child=_after_fork_in_child)
        for name in ("_exit", "execv", "execve"):
            setattr(os, name, _flushing(getattr(os, name)))
    _chain()


def _chain() -> None:
    """Run the sitecustomize this file shadows (a distribution's or a venv's own)."""
    import importlib.machinery
    import importlib.util

    here = os.path.dirname(os.path.abspath(__file__))
    rest = [p for p in sys.path if os.path.abspath(p or os.curdir) != here]
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", rest)
    if spec is None or spec.loader is None:
        return
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)


if __name__ == "sitecustomize":
    install()
