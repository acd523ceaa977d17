"""JSON in and out, bounded: text that stays valid UTF-8 whatever its strings hold, and a
document nested too deep to read, or holding an integer too long to read (digits.py), as a
decoding error, never a RecursionError or a ValueError."""

from __future__ import annotations

import json
from typing import Any

from knobregistry._io.digits import LONG_RUN, too_long
from knobregistry._text.surrogates import LONE_SURROGATE


def dumps(document: Any, *, indent: int | None = 2, sort_keys: bool = False) -> str:
    """``document`` as JSON text, non-ASCII kept as it is; a lone surrogate (a Python
    string may hold one, from source code or a cache) is written as its ``\\uXXXX``
    escape, which JSON allows and UTF-8 can carry."""
    text = json.dumps(document, indent=indent, sort_keys=sort_keys, ensure_ascii=False)
    return LONE_SURROGATE.sub(lambda found: f"\\u{ord(found.group()):04x}", text)


class _TooLong(ValueError):
    pass


def _integer(text: str) -> int:
    problem = too_long(text)
    if problem is not None:
        raise _TooLong(problem)
    return int(text)


def loads(text: str | bytes) -> Any:
    """The document ``text`` holds; json.JSONDecodeError when it is not JSON, is nested too
    deep for the decoder, or holds an integer of more than MAX_DIGITS digits (digits.py)."""
    try:
        return json.loads(text, parse_int=_integer)
    except RecursionError:
        raise json.JSONDecodeError("nested too deeply to read", "", 0) from None
    except _TooLong as exc:
        document = text.decode("utf-8", "replace") if isinstance(text, bytes) else text
        found = LONG_RUN.search(document)
        raise json.JSONDecodeError(str(exc), document, found.start() if found else 0) from None
