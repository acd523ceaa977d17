"""The one table of how Python code touches the environment.

Every other module asks here: which calls read, which write, how ``os.environ``
is spelled, and which words a file must contain to hold a read (the byte
prefilter). Qualified names are those ``scanner.syntax.symbols.qualify`` gives.
"""

from __future__ import annotations

import re
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

# Expressions whose value is a copy of the environment (reads of the copy are reads).
ENVIRON_COPIES: Final = frozenset({"os.environ.copy", "dict", "os.environ._data.copy"})

# Methods of ``os.environ`` that give its names for a membership test.
ENVIRON_VIEWS: Final = frozenset({"keys"})

# The names of the ``os`` module that touch the environment (what ``from os import *``
# brings that matters here).
OS_NAMES: Final = ("environ", "getenv", "putenv", "unsetenv")

# Callables named like environment accessors, from any module (a compiled one too):
# the first argument is the name, the second the default. ``getenv_bool`` and the
# like answer a boolean.
ACCESSOR_NAME: Final = re.compile(r"_?(?:os_)?(?:get_?env|env_?get)(?:_(bool|int|float|str))?")
BOOLEAN_ACCESSOR_SUFFIX: Final = "bool"

# Words a file must contain (as identifiers) to hold a read or a write of its own.
ENV_WORDS: Final = OS_NAMES


def accessor_kind(short_name: str) -> str | None:
    """For a callable named like an environment accessor: "bool" when it answers a
    boolean, "" otherwise; None when the name is not an accessor's."""
    found = ACCESSOR_NAME.fullmatch(short_name)
    if found is None:
        return None
    return found.group(1) or ""
