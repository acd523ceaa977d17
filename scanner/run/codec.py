"""Plain-data forms of per-file results, for the cache and for worker processes.

JSON only (never pickle): a cache directory is not trusted to hold code.
Tuples and frozensets among constant values are tagged so they round-trip.
"""

from __future__ import annotations

from typing import Any

from scanner.model import (
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


def decode_value(data: Any) -> object:
    if isinstance(data, dict):
        if "tuple" in data:
            return tuple(decode_value(v) for v in data["tuple"])
        if "frozenset" in data:
            return frozenset(decode_value(v) for v in data["frozenset"])
        if "dict" in data:
            return {decode_value(k): decode_value(v) for k, v in data["dict"]}
        raise ValueError("unknown tagged value")
    if data is None or isinstance(data, str | bool | int | float):
        return data
    raise ValueError(f"not a constant: {data!r}")


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
    }


def decode_wrapper(data: dict[str, Any]) -> Wrapper:
    symbols = Symbols(
        module=str(data["module"]),
        imports={str(k): str(v) for k, v in data["imports"]},
        functions=frozenset(str(f) for f in data["functions"]),
        constants={str(k): decode_value(v) for k, v in data["constants"]},
        star_modules=tuple(str(m) for m in data["star_modules"]),
        class_constants={
            str(name): {str(k): decode_value(v) for k, v in attrs}
            for name, attrs in data["class_constants"]
        },
    )
    return Wrapper(
        qualname=str(data["qualname"]),
        path=str(data["path"]),
        line=int(data["line"]),
        name_param=str(data["name_param"]),
        method=bool(data["method"]),
        source=str(data["source"]),
        symbols=symbols,
        kind=str(data["kind"]),
        reader=_optional(data["reader"]),
        value_param=_optional(data["value_param"]),
        pattern=_optional(data["pattern"]),
        read_line=int(data["read_at"][0]),
        read_column=int(data["read_at"][1]),
        exported_by=tuple(str(p) for p in data["exported_by"]),
    )


def _optional(value: Any) -> str | None:
    return None if value is None else str(value)


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
        "language": site.language,
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
    }


def decode_site(data: dict[str, Any]) -> Site:
    (kind, default_on, off_value, on_value, off_values, on_values, polarity, reason, choices) = (
        data["gate"][:9]
    )
    condition = data["gate"][9]
    return Site(
        name=str(data["name"]),
        path=str(data["path"]),
        line=int(data["line"]),
        column=int(data["column"]),
        kind=ReadKind(data["kind"]),
        default=data["default"],
        gate=Gate(
            kind=GateKind(kind),
            default_on=default_on,
            off_value=off_value,
            on_value=on_value,
            off_values=tuple(off_values),
            on_values=tuple(on_values),
            polarity=Polarity(polarity),
            reason=reason,
            choices=tuple(str(c) for c in choices),
            condition=_optional(condition),
        ),
        function=str(data["function"]),
        via=data["via"],
        language=str(data["language"]),
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
    path, line, column, expression, function, reason, via = data
    return DynamicRead(
        path=str(path),
        line=int(line),
        column=int(column),
        expression=str(expression),
        function=str(function),
        reason=str(reason),
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
        write.language,
        write.condition,
        [list(pair) for pair in write.when],
    ]


def decode_write(data: list[Any]) -> Write:
    name, path, line, column, kind, function, value, via, language, condition, when = data
    return Write(
        name=name,
        path=str(path),
        line=int(line),
        column=int(column),
        kind=WriteKind(kind),
        function=str(function),
        value=value,
        via=via,
        language=str(language),
        condition=_optional(condition),
        when=tuple((str(n), str(v)) for n, v in when),
    )
