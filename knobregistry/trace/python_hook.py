"""knobs trace, Python level: copied as `sitecustomize.py` onto a PYTHONPATH entry of the run.

Every Python process of the traced tree imports it at start-up (before user code), and
it turns ``os.environ`` into a subclass that records reads: ``[]``, ``get`` (so
``os.getenv``), ``in``, and reads of a ``.copy()``. Iterating the environment
(``dict(os.environ)``, ``items()``, ``{**os.environ}``) is recorded as a copy at its
site, not as a read of every variable. ``setdefault`` and ``pop`` are writes.

Records go to a file of this process's own, ``$KNOBS_TRACE_DIR/py-<pid>-<token>.jsonl``,
in whole JSON lines on an O_APPEND descriptor. Reads are counted per (name, site): the
first read of each of its first VALUES values is written at once, so a killed process
still leaves every name it read; reads of further values are counted together, as
"others". The counts are written every FLUSH_EVERY reads, at exit, before ``os._exit``
and before ``os.exec*``. Memory and records are bounded: PAIRS pairs, VALUES values each
(kept as hashes), names, values and paths of bounded length; what falls outside is
counted as "unrecorded". A forked child starts a file of its own. Standard library
only: the traced interpreter need not have knobregistry installed. Secret-looking names
(see ``secret``) keep only "set", here, before anything is written.
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
SECRETS_VARIABLE = "KNOBS_TRACE_SECRETS"  # more secret patterns, comma-separated
# A name is a secret when one of its parts (runs of letters or of digits, split where
# lower case turns upper: ``apiKey`` is API, KEY) is one of SECRET_WORDS, or ends with
# one of SECRET_ENDINGS (ACCESSTOKEN, APIKEY). interposer.c holds the same lists.
SECRET_WORDS = (
    *("PWD", "PASS", "PASSWD", "PASSWORD", "PAT", "TOKEN", "SECRET", "SECRETS", "KEY"),
    *("KEYS", "CREDENTIAL", "CREDENTIALS", "AUTH", "COOKIE", "COOKIES", "PRIVATE"),
)
SECRET_ENDINGS = ("TOKEN", "SECRET", "PASSWORD", "PASSWD", "KEY")
NOT_SECRETS = ("PWD", "OLDPWD")  # the shell's working folders
STACK_DEPTH = 8  # outer frames kept with a first read, to match dynamic reads of a scan
PAIRS = 8192  # (name, site) pairs a process keeps; reads at further ones are counted only
VALUES = 8  # values kept per pair; reads of further values are counted together
MAX_NAME = 1024  # bytes; a read of a longer name is counted only
MAX_VALUE = 32768  # bytes; a longer value is recorded as "long", without itself
MAX_PATH = 4096  # bytes of a site's path; a read at a longer one is counted only
FLUSH_EVERY = 65536  # reads between two writes of the counts, so a crash loses few

_local = threading.local()
_lock = threading.RLock()


class _Pair:
    """One (name, site): its values (a key per value: its hash, never the value itself)
    and the id of each, and the reads of values past the first VALUES."""

    __slots__ = ("first", "others", "secret", "values")

    def __init__(self, secret: bool) -> None:
        self.secret = secret
        self.values: dict[object, int] = {}
        self.first = -1  # the id of its first value: others are written against it
        self.others = 0


_pairs: dict[tuple[str, str, int], _Pair] = {}
_counts: list[int] = []  # per id: reads, and how many of them are written
_written: list[int] = []
_dirty: set[int] = set()
_others_written: dict[int, int] = {}  # per pair's first id
_copies: dict[tuple[str, int], int] = {}
_copies_written: dict[tuple[str, int], int] = {}
_unrecorded = [0, 0]  # reads counted only, and how many of them are written
_reads = 0
_extra_secrets: tuple[str, ...] = ()
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


def name_parts(name: str) -> str:
    """The parts of ``name`` in upper case, each between underscores: ``_MYSQL_PWD_``."""
    out = ["_"]
    previous = ""
    for char in name:
        kind = "a" if "a" <= char <= "z" else "A" if "A" <= char <= "Z" else ""
        kind = kind or ("0" if "0" <= char <= "9" else "")
        if not kind:
            if out[-1] != "_":
                out.append("_")
        else:
            split = previous and (previous.lower() != kind.lower() or previous + kind == "aA")
            if split and out[-1] != "_":
                out.append("_")
            out.append(char.upper())
        previous = kind
    if out[-1] != "_":
        out.append("_")
    return "".join(out)


def secret(name: str, extra: tuple[str, ...] = ()) -> bool:
    """Whether ``name`` looks like a secret's: a part is one of SECRET_WORDS (or of
    ``extra``, patterns of one or more parts), or ends with one of SECRET_ENDINGS."""
    parts = name_parts(name)
    if parts.strip("_") in NOT_SECRETS:
        return False
    patterns = (name_parts(pattern) for pattern in extra)
    return (
        any(f"_{word}_" in parts for word in SECRET_WORDS)
        or any(f"{word}_" in parts for word in SECRET_ENDINGS)
        or any(pattern != "_" and pattern in parts for pattern in patterns)
    )


def _too_long(text: str, limit: int) -> bool:
    """Whether ``text`` takes more than ``limit`` bytes in UTF-8."""
    return len(text) > limit // 4 and len(text.encode("utf-8", "surrogatepass")) > limit


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
            path = _path(name)
            if not _too_long(path, MAX_PATH):
                out.append([path, frame.f_lineno])
        frame = frame.f_back
    return out


def _emit(*payloads: dict[str, object]) -> None:
    """Write ``payloads``, a JSON line each, with one write when they fit in one."""
    global _fd
    import json

    if _fd < 0:
        token = os.urandom(4).hex()
        target = os.path.join(_directory, f"py-{os.getpid()}-{token}.jsonl")
        flags = os.O_WRONLY | os.O_CREAT | os.O_APPEND | getattr(os, "O_CLOEXEC", 0)
        _fd = os.open(target, flags, 0o600)
    lines = "".join(json.dumps(payload, sort_keys=True) + "\n" for payload in payloads)
    view = memoryview(lines.encode("utf-8", "backslashreplace"))
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
    """Count one read of ``name``; the first of each value at a site is written at once."""
    if not isinstance(name, str) or getattr(_local, "busy", False):
        return
    _local.busy = True
    try:
        frame = _caller()
        if frame is None or _in_copy(frame):
            return
        with _lock:
            _count(name, value, frame)
    except OSError:
        pass  # the folder is gone: the run goes on untraced
    finally:
        _local.busy = False


def _count(name: str, value: str | None, frame: FrameType) -> None:
    global _reads
    _reads += 1
    if _reads % FLUSH_EVERY == 0:
        flush()
    if value is not None and not isinstance(value, str):  # put in a copy by the program
        value = f"<{type(value).__name__}>"
    filename = frame.f_code.co_filename
    line = frame.f_lineno
    pair = _pairs.get((name, filename, line))
    if pair is None:
        if len(_pairs) >= PAIRS or _too_long(name, MAX_NAME) or _too_long(filename, MAX_PATH):
            _count_unrecorded()
            return
        pair = _pairs[name, filename, line] = _Pair(secret(name, _extra_secrets))
    if value is None:
        state = "u"
    elif pair.secret:
        state = "s"
    elif _too_long(value, MAX_VALUE):
        state = "l"
    else:
        state = "v"
    key: object = hash(value) if state == "v" else state  # no value is kept, only its hash
    index = pair.values.get(key)
    if index is not None:
        _counts[index] += 1
        _dirty.add(index)
    elif len(pair.values) >= VALUES:
        pair.others += 1
        if pair.others == 1:
            _others_written[pair.first] = 1
            _emit({"id": pair.first, "others": 1})
    else:
        index = len(_counts)
        pair.values[key] = index
        pair.first = index if pair.first < 0 else pair.first
        _counts.append(1)
        _written.append(1)
        _emit(
            {
                "id": index,
                "name": name,
                "state": state,
                "value": value if state == "v" else None,
                "path": _path(filename),
                "line": line,
                "stack": _stack(frame.f_back),
            }
        )


def _count_unrecorded() -> None:
    _unrecorded[0] += 1
    if _unrecorded[0] == 1:
        _unrecorded[1] = 1
        _emit({"unrecorded": 1})


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
        if seen == 0 and (len(_copies) >= PAIRS or _too_long(site[0], MAX_PATH)):
            try:
                _count_unrecorded()
            except OSError:
                pass
            return
        _copies[site] = seen + 1
        if seen == 0:
            _copies_written[site] = 1
            _emit_quietly({"copy": [site[0], site[1]]})


def flush() -> None:
    """Write the counts of repeated reads and copies since the last flush, in one write."""
    with _lock:
        out: list[dict[str, object]] = []
        for index in sorted(_dirty):
            out.append({"id": index, "more": _counts[index] - _written[index]})
            _written[index] = _counts[index]
        _dirty.clear()
        for pair in _pairs.values():
            written = _others_written.get(pair.first, 0)
            if pair.others > written:
                out.append({"id": pair.first, "others": pair.others - written})
                _others_written[pair.first] = pair.others
        for site, count in _copies.items():
            if count > _copies_written[site]:
                out.append({"copy": [site[0], site[1]], "more": count - _copies_written[site]})
                _copies_written[site] = count
        if _unrecorded[0] > _unrecorded[1]:
            out.append({"unrecorded": _unrecorded[0] - _unrecorded[1]})
            _unrecorded[1] = _unrecorded[0]
        try:
            if out:
                _emit(*out)
        except OSError:
            pass


def _after_fork_in_child() -> None:
    global _fd, _lock, _reads
    _lock = threading.RLock()
    _fd = -1
    _reads = 0
    for table in (_pairs, _dirty, _others_written, _copies, _copies_written):
        table.clear()
    del _counts[:], _written[:]
    _unrecorded[:] = [0, 0]


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


def start(directory: str, secrets: str = "") -> None:
    """Trace this process from now on into ``directory`` (the pytest plugin's in-process
    trace; a traced run's processes use :func:`install`); ``secrets``: more secret
    patterns, comma-separated."""
    global _directory, _extra_secrets
    _directory = directory
    _extra_secrets = tuple(secrets.split(","))
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
        start(directory, os.environ.get(SECRETS_VARIABLE, ""))
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
