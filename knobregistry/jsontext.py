"""JSON in and out, bounded: text that stays valid UTF-8 whatever its strings hold, and a
document nested too deep to read as a decoding error, never a RecursionError."""

from __future__ import annotations

import json
from typing import Any

from knobregistry.surrogates import LONE_SURROGATE


def dumps(document: Any, *, indent: int | None = 2, sort_keys: bool = False) -> str:
    """``document`` as JSON text, non-ASCII kept as it is; a lone surrogate (a Python
    string may hold one, from source code or a cache) is written as its ``\\uXXXX``
    escape, which JSON allows and UTF-8 can carry."""
    text = json.dumps(document, indent=indent, sort_keys=sort_keys, ensure_ascii=False)
    return LONE_SURROGATE.sub(lambda found: f"\\u{ord(found.group()):04x}", text)


def loads(text: str | bytes) -> Any:
    """The document ``text`` holds; json.JSONDecodeError when it is not JSON or is
    nested too deep for the decoder."""
    try:
        return json.loads(text)
    except RecursionError:
        raise json.JSONDecodeError("nested too deeply to read", "", 0) from None
