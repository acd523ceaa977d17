"""JSON in and out, bounded: text that stays valid UTF-8 whatever its strings hold, and a
document nested too deep to read as a decoding error, never a RecursionError.

Indented JSON is written here, byte for byte as ``json.dumps(indent=...)`` writes it: the
standard library takes its pure-Python encoder for any indent (a generator per container,
70 ms of a warm `knobs scan --format json` of torch), while this writer appends to one list
and escapes strings with the C encoder's own function.
"""

from __future__ import annotations

import json
from json.encoder import encode_basestring
from typing import Any

from knobregistry.surrogates import LONE_SURROGATE


class _NotPlain(Exception):
    """A value ``json.dumps`` would have to judge (another type, a circular document)."""


_WORDS: dict[object, str] = {None: "null", True: "true", False: "false"}


def dumps(document: Any, *, indent: int | None = 2, sort_keys: bool = False) -> str:
    """``document`` as JSON text, non-ASCII kept as it is; a lone surrogate (a Python
    string may hold one, from source code or a cache) is written as its ``\\uXXXX``
    escape, which JSON allows and UTF-8 can carry."""
    text = None
    if indent is not None:
        parts: list[str] = []
        try:
            _write(document, parts, "\n", " " * indent, sort_keys)
            text = "".join(parts)
        except (_NotPlain, RecursionError):
            pass  # json.dumps says what is wrong with it (or calls a list a list)
    if text is None:
        text = json.dumps(document, indent=indent, sort_keys=sort_keys, ensure_ascii=False)
    return LONE_SURROGATE.sub(lambda found: f"\\u{ord(found.group()):04x}", text)


def _write(value: Any, out: list[str], newline: str, step: str, sort_keys: bool) -> None:
    """``value`` appended to ``out`` as ``json.dumps`` indents it, ``newline`` being the line
    break and indentation of the line it starts on."""
    scalar = _SCALARS.get(type(value))
    if scalar is not None:
        out.append(scalar(value))
    elif isinstance(value, str):
        out.append(encode_basestring(value))
    elif isinstance(value, int):
        out.append(int.__repr__(value))
    elif isinstance(value, float):
        out.append(_float(value))
    elif isinstance(value, list | tuple):
        if not value:
            out.append("[]")
            return
        inner = newline + step
        separator = "[" + inner
        for item in value:
            out.append(separator)
            separator = "," + inner
            scalar = _SCALARS.get(type(item))
            if scalar is not None:
                out.append(scalar(item))
            else:
                _write(item, out, inner, step, sort_keys)
        out.append(newline + "]")
    elif isinstance(value, dict):
        if not value:
            out.append("{}")
            return
        inner = newline + step
        separator = "{" + inner
        for key, item in sorted(value.items()) if sort_keys else value.items():
            scalar = _SCALARS.get(type(item))
            if scalar is not None:
                out.append(f"{separator}{_key(key)}: {scalar(item)}")
            else:
                out.append(f"{separator}{_key(key)}: ")
                _write(item, out, inner, step, sort_keys)
            separator = "," + inner
        out.append(newline + "}")
    else:
        raise _NotPlain


def _key(key: object) -> str:
    """A mapping's key as ``json.dumps`` writes it: a string."""
    if isinstance(key, str):
        return encode_basestring(key)
    if isinstance(key, float):
        return encode_basestring(_float(key))
    if key is True or key is False or key is None:
        return encode_basestring(_WORDS[key])
    if isinstance(key, int):
        return encode_basestring(int.__repr__(key))
    raise _NotPlain


def _float(value: float) -> str:
    """A float as ``json.dumps`` writes it (NaN and the infinities as JavaScript does)."""
    if value != value:
        return "NaN"
    if value in (float("inf"), float("-inf")):
        return "Infinity" if value > 0 else "-Infinity"
    return float.__repr__(value)


# The exact types of the scalars a document is mostly made of (bool is not an int here).
_SCALARS: dict[type, Any] = {
    str: encode_basestring,
    int: int.__repr__,
    float: _float,
    bool: lambda value: "true" if value else "false",
    type(None): lambda value: "null",
}


def loads(text: str | bytes) -> Any:
    """The document ``text`` holds; json.JSONDecodeError when it is not JSON or is
    nested too deep for the decoder."""
    try:
        return json.loads(text)
    except RecursionError:
        raise json.JSONDecodeError("nested too deeply to read", "", 0) from None
