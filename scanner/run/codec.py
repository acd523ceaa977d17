"""Plain-data forms of per-file results, for the cache and for worker processes.

JSON only (never pickle): a cache directory is not trusted to hold code.
Tuples and frozensets among constant values are tagged so they round-trip.
Decoding checks every field's type (a forged or damaged entry raises ValueError
or TypeError, and the caller treats it as a miss), and constant values are
nested at most ``MAX_VALUE_DEPTH`` deep.
"""

from __future__ import annotations

from typing import Any

from scanner.languages import Language
from scanner.model import (
    Decision,
    DecisionKind,
    DynamicRead,
    Gate,
    GateKind,
    Polarity,
    ReadKind,
    Site,
    Write,
    WriteKind,
)
from scanner.syntax.index import Wrapper
from scanner.syntax.namespace import Symbols


def encode_value(value: object) -> Any:
    """A constant value as JSON data (tuples, frozensets and dicts tagged)."""
    if isinstance(value, dict):
        return {"dict": [[encode_value(k), encode_value(v)] for k, v in value.items()]}
    if isinstance(value, tuple):
        return {"tuple": [encode_value(v) for v in value]}
    if isinstance(value, frozenset):
        return {"frozenset": sorted((encode_value(v) for v in value), key=repr)}
    if value is None or isinstance(value, str | bool | int | float):
        return value
    raise TypeError(f"cannot encode constant {value!r}")


MAX_VALUE_DEPTH = 32  # constants nested deeper are not stored by the scanner either


def decode_value(data: Any, depth: int = 0) -> object:
    if depth > MAX_VALUE_DEPTH:
        raise ValueError("constant nested too deep")
    if isinstance(data, dict):
        if "tuple" in data:
            return tuple(decode_value(v, depth + 1) for v in _list(data["tuple"]))
        if "frozenset" in data:
            return frozenset(decode_value(v, depth + 1) for v in _list(data["frozenset"]))
        if "dict" in data:
            return {
                decode_value(k, depth + 1): decode_value(v, depth + 1)
                for k, v in _list(data["dict"])
            }
        raise ValueError("unknown tagged value")
    if data is None or isinstance(data, str | bool | int | float):
        return data
    raise ValueError("not a constant")


def decode_list(value: Any) -> list[Any]:
    """``value`` when it is a list; TypeError otherwise."""
    return _list(value)


def decode_text(value: Any) -> str:
    """``value`` when it is a string; TypeError otherwise."""
    return _text(value)


def decode_texts(value: Any) -> tuple[str, ...]:
    """``value`` when it is a list of strings; TypeError otherwise."""
    return _texts(value)


def decode_optional(value: Any) -> str | None:
    """``value`` when it is a string or None; TypeError otherwise."""
    return _optional(value)


def decode_pairs(value: Any) -> list[tuple[str, Any]]:
    """``[[name, value], ...]``; TypeError or ValueError otherwise."""
    return _pairs(value)


def _list(value: Any) -> list[Any]:
    if not isinstance(value, list):
        raise TypeError("a list was expected")
    return value


def _text(value: Any) -> str:
    if not isinstance(value, str):
        raise TypeError("a string was expected")
    return value


def _number(value: Any) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError("an integer was expected")
    return value


def _flag(value: Any) -> bool:
    if not isinstance(value, bool):
        raise TypeError("a boolean was expected")
    return value


def _maybe_flag(value: Any) -> bool | None:
    return None if value is None else _flag(value)


def _texts(value: Any) -> tuple[str, ...]:
    return tuple(_text(v) for v in _list(value))


def _pairs(value: Any) -> list[tuple[str, Any]]:
    """``[[name, anything], ...]``, the form mappings are stored in."""
    pairs = []
    for pair in _list(value):
        key, item = _list(pair)
        pairs.append((_text(key), item))
    return pairs


def encode_wrapper(wrapper: Wrapper) -> dict[str, Any]:
    symbols = wrapper.symbols
    return {
        "qualname": wrapper.qualname,
        "path": wrapper.path,
        "line": wrapper.line,
        "name_param": wrapper.name_param,
        "method": wrapper.method,
        "source": wrapper.source,
        "module": symbols.module,
        "imports": sorted(symbols.imports.items()),
        "functions": sorted(symbols.functions),
        "constants": sorted((k, encode_value(v)) for k, v in symbols.constants.items()),
        "star_modules": list(symbols.star_modules),
        "class_constants": sorted(
            (name, sorted((k, encode_value(v)) for k, v in attrs.items()))
            for name, attrs in symbols.class_constants.items()
        ),
        "kind": wrapper.kind,
        "reader": wrapper.reader,
        "value_param": wrapper.value_param,
        "pattern": wrapper.pattern,
        "read_at": [wrapper.read_line, wrapper.read_column],
        "exported_by": list(wrapper.exported_by),
        "imported_by": list(wrapper.imported_by),
        "quiet": list(wrapper.quiet),
        "classmethod": wrapper.classmethod,
        "fields": [[attr, list(names)] for attr, names in wrapper.fields],
    }


def decode_wrapper(data: dict[str, Any]) -> Wrapper:
    symbols = Symbols(
        module=_text(data["module"]),
        imports={k: _text(v) for k, v in _pairs(data["imports"])},
        functions=frozenset(_texts(data["functions"])),
        constants={k: decode_value(v) for k, v in _pairs(data["constants"])},
        star_modules=_texts(data["star_modules"]),
        class_constants={
            name: {k: decode_value(v) for k, v in _pairs(attrs)}
            for name, attrs in _pairs(data["class_constants"])
        },
    )
    read_line, read_column = _list(data["read_at"])
    return Wrapper(
        qualname=_text(data["qualname"]),
        path=_text(data["path"]),
        line=_number(data["line"]),
        name_param=_text(data["name_param"]),
        method=_flag(data["method"]),
        source=_text(data["source"]),
        symbols=symbols,
        kind=_text(data["kind"]),
        reader=_optional(data["reader"]),
        value_param=_optional(data["value_param"]),
        pattern=_optional(data["pattern"]),
        read_line=_number(read_line),
        read_column=_number(read_column),
        exported_by=_texts(data["exported_by"]),
        imported_by=_texts(data.get("imported_by", [])),
        quiet=_texts(data["quiet"]),
        classmethod=_flag(data["classmethod"]),
        fields=tuple((attr, _texts(names)) for attr, names in _pairs(data["fields"])),
    )


def _optional(value: Any) -> str | None:
    return None if value is None else _text(value)


def encode_site(site: Site) -> dict[str, Any]:
    gate = site.gate
    return {
        "name": site.name,
        "path": site.path,
        "line": site.line,
        "column": site.column,
        "kind": site.kind.value,
        "default": site.default,
        "function": site.function,
        "via": site.via,
        "language": site.language.value,
        "target": site.target,
        "default_computed": site.default_computed,
        "gate": [
            gate.kind.value,
            gate.default_on,
            gate.off_value,
            gate.on_value,
            list(gate.off_values),
            list(gate.on_values),
            gate.polarity.value,
            gate.reason,
            list(gate.choices),
            gate.condition,
        ],
        "decisions": [_encode_decision(d) for d in site.decisions],
        "passes": [list(pair) for pair in site.passes],
        "override": site.override,
    }


def _encode_decision(decision: Decision) -> list[Any]:
    return [
        decision.kind.value,
        decision.line,
        decision.column,
        [[value, outcome] for value, outcome in decision.outcomes],
        decision.holds_read,
        decision.name,
        decision.store,
    ]


def _decode_decision(data: Any) -> Decision:
    kind, line, column, outcomes, holds_read, name, store = _list(data)
    pairs = []
    for pair in _list(outcomes):
        value, outcome = _list(pair)
        if outcome is not None and not isinstance(outcome, str | bool | int | float):
            raise TypeError("an outcome must be a plain value")
        pairs.append((_optional(value), outcome))
    return Decision(
        kind=DecisionKind(_text(kind)),
        line=_number(line),
        column=_number(column),
        outcomes=tuple(pairs),
        holds_read=_flag(holds_read),
        name=_optional(name),
        store=_optional(store),
    )


def decode_site(data: dict[str, Any]) -> Site:
    (
        kind,
        default_on,
        off_value,
        on_value,
        off_values,
        on_values,
        polarity,
        reason,
        choices,
        condition,
    ) = _list(data["gate"])
    return Site(
        name=_text(data["name"]),
        path=_text(data["path"]),
        line=_number(data["line"]),
        column=_number(data["column"]),
        kind=ReadKind(_text(data["kind"])),
        default=_optional(data["default"]),
        gate=Gate(
            kind=GateKind(_text(kind)),
            default_on=_maybe_flag(default_on),
            off_value=_optional(off_value),
            on_value=_optional(on_value),
            off_values=_texts(off_values),
            on_values=_texts(on_values),
            polarity=Polarity(_text(polarity)),
            reason=_optional(reason),
            choices=_texts(choices),
            condition=_optional(condition),
        ),
        function=_text(data["function"]),
        via=_optional(data["via"]),
        language=Language(_text(data["language"])),
        target=_optional(data["target"]),
        default_computed=_optional(data["default_computed"]),
        decisions=tuple(_decode_decision(d) for d in _list(data.get("decisions", []))),
        passes=tuple((_text(value), _text(flag)) for value, flag in _list(data.get("passes", []))),
        override=_optional(data.get("override")),
    )


def encode_dynamic(read: DynamicRead) -> list[Any]:
    return [
        read.path,
        read.line,
        read.column,
        read.expression,
        read.function,
        read.reason,
        read.via,
    ]


def decode_dynamic(data: list[Any]) -> DynamicRead:
    path, line, column, expression, function, reason, via = _list(data)
    return DynamicRead(
        path=_text(path),
        line=_number(line),
        column=_number(column),
        expression=_text(expression),
        function=_text(function),
        reason=_text(reason),
        via=_optional(via),
    )


def encode_write(write: Write) -> list[Any]:
    return [
        write.name,
        write.path,
        write.line,
        write.column,
        write.kind.value,
        write.function,
        write.value,
        write.via,
        write.language.value,
        write.condition,
        [list(pair) for pair in write.when],
        write.computed,
    ]


def decode_write(data: list[Any]) -> Write:
    (name, path, line, column, kind, function, value, via, language, condition, when, computed) = (
        _list(data)
    )
    return Write(
        name=_optional(name),
        path=_text(path),
        line=_number(line),
        column=_number(column),
        kind=WriteKind(_text(kind)),
        function=_text(function),
        value=_optional(value),
        via=_optional(via),
        language=Language(_text(language)),
        condition=_optional(condition),
        when=tuple((n, _text(v)) for n, v in _pairs(when)),
        computed=_optional(computed),
    )
