"""The tree-wide table of wrapper functions, the only cross-file input of a file's analysis.

A wrapper carries its own source and the bindings of its module that it uses,
so a call site in another file can evaluate it without that file at hand.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING

from scanner.model import WrapperInfo

if TYPE_CHECKING:
    import libcst as cst
from scanner.syntax.namespace import Symbols


@dataclass(frozen=True)
class Wrapper:
    """A function whose parameter ``name_param`` names the variable it reads."""

    qualname: str
    path: str
    line: int
    name_param: str
    method: bool  # its first parameter is bound (self or cls)
    source: str  # the function definition's code
    symbols: Symbols  # the bindings of its module that the function uses

    @property
    def short_name(self) -> str:
        return self.qualname.rsplit(".", 1)[-1]

    @property
    def anchor(self) -> str:
        """The word any other file calling it must contain: its module's or class's name."""
        parts = self.qualname.rsplit(".", 2)
        return parts[-2] if len(parts) > 1 else parts[-1]

    def reachable_from(self, data: bytes, path: str) -> bool:
        """Whether a file that names this wrapper (its bytes and path) can call it: the
        wrapper's own file, or one that names its module or class too."""
        if path == self.path:
            return True
        return self.anchor.encode() in data and _word(self.anchor).search(data) is not None

    def info(self) -> WrapperInfo:
        return WrapperInfo(
            qualname=self.qualname, path=self.path, line=self.line, name_param=self.name_param
        )

    def function(self) -> cst.FunctionDef:
        """The parsed definition (parsed once per process)."""
        return _parse_function(self.source)


@lru_cache(maxsize=4096)
def _word(name: str) -> re.Pattern[bytes]:
    return re.compile(rb"\b" + re.escape(name.encode()) + rb"\b")


@lru_cache(maxsize=1024)
def _parse_function(source: str) -> cst.FunctionDef:
    import libcst as cst  # only a cache miss evaluates a wrapper, and needs the parser

    statement = cst.parse_module(source).body[0]
    assert isinstance(statement, cst.FunctionDef)
    return statement


@dataclass(frozen=True)
class WrapperIndex:
    """Wrappers by qualified name, with a suffix fallback for namespace packages."""

    wrappers: Mapping[str, Wrapper] = field(default_factory=dict)

    by_short: Mapping[bytes, tuple[Wrapper, ...]] = field(default_factory=dict)

    @classmethod
    def of(cls, wrappers: Iterable[Wrapper]) -> WrapperIndex:
        ordered = {w.qualname: w for w in sorted(wrappers, key=lambda w: w.qualname)}
        groups: dict[bytes, list[Wrapper]] = {}
        for wrapper in ordered.values():
            groups.setdefault(wrapper.short_name.encode(), []).append(wrapper)
        return cls(ordered, {short: tuple(group) for short, group in groups.items()})

    def callable_from(self, data: bytes, path: str) -> tuple[Wrapper, ...]:
        """The wrappers a file (its bytes and path) can call, and those they call in turn.

        Each short name is looked for once, however many modules define it (a tree
        that vendors a package twice defines every wrapper twice).
        """
        chosen: dict[str, Wrapper] = {}
        for short, group in self.by_short.items():
            if short in data and _word(group[0].short_name).search(data):
                chosen.update((w.qualname, w) for w in group if w.reachable_from(data, path))
        pending = list(chosen.values())
        while pending:
            source = pending.pop().source.encode()
            for short, group in self.by_short.items():
                if short in source:
                    for wrapper in group:
                        if wrapper.qualname not in chosen:
                            chosen[wrapper.qualname] = wrapper
                            pending.append(wrapper)
        return tuple(chosen[q] for q in sorted(chosen))

    @property
    def short_names(self) -> frozenset[str]:
        return frozenset(w.short_name for w in self.wrappers.values())

    def lookup(self, qualname: str) -> Wrapper | None:
        """The wrapper ``qualname`` names: exactly, or by a unique module-path suffix.

        The suffix rule lets ``from pkg.util import flag`` find ``util.flag``
        when ``pkg`` is a namespace package whose module names start lower.
        """
        found = self.wrappers.get(qualname)
        if found is not None or not self.wrappers:
            return found
        short = qualname.rsplit(".", 1)[-1]
        matches = [
            w
            for w in self.by_short.get(short.encode(), ())
            if qualname.endswith("." + w.qualname) or w.qualname.endswith("." + qualname)
        ]
        return matches[0] if len(matches) == 1 else None
