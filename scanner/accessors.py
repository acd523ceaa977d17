"""The one table of how Python code touches the environment.

Every other module asks here: which calls read, which write, how ``os.environ``
is spelled, and which words a file must contain to hold a read (the byte
prefilter). Qualified names are those ``scanner.syntax.symbols.qualify`` gives.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Final

from scanner.model import ReadKind, WriteKind

ENVIRON: Final = "os.environ"

# Calls that read one variable: qualified callee -> how the site reads it.
READ_CALLS: Final[dict[str, ReadKind]] = {
    "os.environ.get": ReadKind.GET,
    "os.getenv": ReadKind.GETENV,
}

# Calls that write one variable (its name is the first argument).
WRITE_CALLS: Final[dict[str, WriteKind]] = {
    "os.environ.setdefault": WriteKind.SETDEFAULT,
    "os.environ.pop": WriteKind.POP,
    "os.putenv": WriteKind.PUTENV,
    "os.unsetenv": WriteKind.UNSETENV,
}

# ``functools.partial(wrapper, "NAME", ...)``: the wrapper's call, bound to be made later.
PARTIAL_CALLS: Final = frozenset({"functools.partial"})

# ``os.environ.update(mapping, **names)``: a write of each name it gives.
ENVIRON_UPDATE: Final = "os.environ.update"

# Expressions whose value is a copy of the environment (reads of the copy are reads).
ENVIRON_COPIES: Final = frozenset({"os.environ.copy"})  # and dict(os.environ)

# Methods of ``os.environ`` that give its names for a membership test.
ENVIRON_VIEWS: Final = frozenset({"keys"})

# The names of the ``os`` module that touch the environment (what ``from os import *``
# brings that matters here).
OS_NAMES: Final = ("environ", "getenv", "putenv", "unsetenv")

# Callables named like environment accessors, from any module (a compiled one too):
# the first argument is the name, the second the default. ``getenv_bool`` and the
# like answer a boolean.
ACCESSOR_NAME: Final = re.compile(r"_?(?:os_)?get_?env(?:_(bool|int|float|str))?")

# Words a file must contain (as identifiers) to hold a read or a write of its own; an
# accessor's name (``getenv_bool``) is found by ACCESSOR_NAME (see ``prefilter``).
ENV_WORDS: Final = OS_NAMES
# A settings model reads the environment with no word of ``os``: ``class S(BaseSettings)``.
SETTINGS_WORD: Final = "BaseSettings"
_IDENTIFIER_BYTES: Final = frozenset(
    b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_"
)


def accessor_kind(short_name: str, extra: Sequence[str] = ()) -> str | None:
    """For a callable named like an environment accessor (or one of ``extra``): "bool",
    "int" or "float" when it answers one, "" otherwise; None when it is not an accessor."""
    if short_name in extra:
        return ""
    if "env" not in short_name:
        return None  # most calls: no regex needed
    found = ACCESSOR_NAME.fullmatch(short_name)
    if found is None:
        return None
    return found.group(1) or ""


_IDENTIFIER_AROUND = re.compile(r"[A-Za-z_0-9]*")


def accessor_names(text: str, extra: Sequence[str] = ()) -> tuple[str, ...]:
    """The identifiers of ``text`` named like accessors (and the ``extra`` names it holds):
    the words a narrowed text must keep statements for. (str.find runs at C speed; most
    files hold none.)"""
    found: set[str] = set()
    for core in ("getenv", "get_env"):
        at = text.find(core)
        while at >= 0:
            start = at
            while start and (text[start - 1].isalnum() or text[start - 1] == "_"):
                start -= 1
            match = _IDENTIFIER_AROUND.match(text, start)
            word = match.group(0) if match else ""
            if ACCESSOR_NAME.fullmatch(word):
                found.add(word)
            at = text.find(core, at + len(core))
    found.update(name for name in extra if name in text)
    return tuple(sorted(found))


def holds_word(data: bytes, word: bytes) -> bool:
    """Whether ``word`` occurs in ``data`` as a whole identifier."""
    at = data.find(word)
    while at >= 0:
        end = at + len(word)
        before = data[at - 1] if at else None
        after = data[end] if end < len(data) else None
        if before not in _IDENTIFIER_BYTES and after not in _IDENTIFIER_BYTES:
            return True
        at = data.find(word, at + 1)
    return False


def prefilter(extra: Sequence[str] = ()) -> Callable[[bytes], bool]:
    """Whether a file's bytes can hold a read or write: plain substring tests (they run
    at memchr speed, and most files lack even ``env``), then the words as identifiers."""
    words = tuple(w.encode() for w in sorted({*ENV_WORDS, *extra}))
    extra_words = tuple(w.encode() for w in extra)
    accessor = re.compile(rb"\b" + ACCESSOR_NAME.pattern.encode() + rb"\b")

    def wanted(data: bytes) -> bool:
        if SETTINGS_WORD.encode() in data:
            return True
        if b"env" not in data and not any(w in data for w in extra_words):
            return False
        if any(holds_word(data, w) for w in words):
            return True
        return (b"getenv" in data or b"get_env" in data) and accessor.search(data) is not None

    return wanted
