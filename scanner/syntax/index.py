"""The tree-wide table of wrappers and setters: the cross-file input of a file's analysis.

A wrapper is a callable of the scanned tree whose parameter names the variable it
reads: a function (module level, a method, or nested in another function, a
closure factory included), or a class whose constructor keeps the name and whose
methods read it (a descriptor; or whose ``__set_name__`` takes the name from the
attribute an instance is assigned to in a class body). A setter is a function that
writes the variable its parameter names. A registry is a class whose attributes are
such descriptors (sglang's ``class Envs: SGLANG_X = EnvBool(True)``), or a module-level
instance of one: ``envs.SGLANG_X.get()`` reads ``SGLANG_X``. Each carries its own source
and the bindings of its module that it uses, so a call in another file can be evaluated
without that file.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from typing import TYPE_CHECKING

from scanner.accessors import holds_word
from scanner.model import WrapperInfo
from scanner.syntax.namespace import Symbols

if TYPE_CHECKING:
    import libcst as cst

FUNCTION = "function"
CLASS = "class"  # a descriptor: the constructor keeps the name, ``reader`` reads it
SETTER = "setter"
REGISTRY = "registry"  # a class of descriptors, or an instance of one: ``fields`` names them
# The ``name_param`` of a descriptor named by ``__set_name__``: the attribute it is
# assigned to in a class body is the variable's name (or goes into it).
ATTRIBUTE = "__set_name__"


@dataclass(frozen=True, kw_only=True)
class Wrapper:
    """A callable whose parameter ``name_param`` names the variable it reads (or writes)."""

    qualname: str
    path: str
    line: int
    name_param: str
    method: bool  # its first parameter is bound (self or cls)
    source: str  # the definition's code; for a class, with its bases from the same module
    symbols: Symbols  # the bindings of its module that the code uses
    kind: str = FUNCTION
    reader: str | None = None  # a class's method that reads the variable
    value_param: str | None = None  # a setter's parameter holding the value written
    pattern: str | None = None  # the name expression, when it is more than the parameter
    read_line: int = 0  # where that read is (for a wrapper nobody calls)
    read_column: int = 0
    exported_by: tuple[str, ...] = ()  # packages whose __init__ re-exports it
    # Packages that re-export it through a module that imports it (a registry): a file
    # reaches it by ``from package import name``.
    imported_by: tuple[str, ...] = ()
    # Variables it reads by names of its own that a call gives nothing back from: their
    # reads are sites in its body, and its calls are no sites of them.
    quiet: tuple[str, ...] = ()
    # A classmethod: its first parameter is bound whether it is called through ``cls.``,
    # ``self.`` or the class's name (a method's only through ``self.`` or ``cls.``).
    classmethod: bool = False
    # A registry's fields: each attribute, and the variables reading it reads (its source
    # holds their declarations: ``class Envs:`` and ``ATTR = EnvBool(True)`` lines).
    fields: tuple[tuple[str, tuple[str, ...]], ...] = ()

    def binds_first(self, through_instance: bool) -> bool:
        """Whether a call binds the first parameter (``through_instance``: the call spells
        ``self.name(...)`` or ``cls.name(...)``); a staticmethod's never is."""
        return self.classmethod or (self.method and through_instance)

    @property
    def short_name(self) -> str:
        return self.qualname.rsplit(".", 1)[-1]

    @property
    def registry_class(self) -> str:
        """A registry's class (its source starts ``class Name:``)."""
        return self.source.split(":", 1)[0].removeprefix("class ")

    @property
    def module(self) -> str:
        return self.symbols.module

    @cached_property
    def anchors(self) -> tuple[str, ...]:
        """Words a file calling it from elsewhere must contain one of: the names of its
        module, of its class, or of a package that re-exports it. None for a function
        nested in another: no other file can name it."""
        inside = self.qualname[len(self.module) + 1 :] if self.module else self.qualname
        if "<locals>" in inside.split("."):
            return ()
        owners = inside.split(".")[:-1]
        packages = [p.rsplit(".", 1)[-1] for p in self.exported_by]
        module = self.module.rsplit(".", 1)[-1] if self.module else self.short_name
        return tuple(dict.fromkeys([*owners, module, *packages]))

    def reachable_from(self, data: bytes, path: str) -> bool:
        """Whether a file that names this wrapper (its bytes and path) can call it: the
        wrapper's own file, or one that names its module, its class, or a package that
        re-exports it."""
        if path == self.path:
            return True
        if any(_imports(data, p.encode(), self.short_name.encode()) for p in self.imported_by):
            return True  # through a re-export of an import: the file's analysis follows it
        return any(holds_word(data, a) for a in self._anchor_bytes)

    @cached_property
    def _anchor_bytes(self) -> tuple[bytes, ...]:
        return tuple(a.encode() for a in self.anchors)

    def info(self) -> WrapperInfo:
        return WrapperInfo(
            qualname=self.qualname, path=self.path, line=self.line, name_param=self.name_param
        )

    def function(self) -> cst.FunctionDef:
        """The parsed definition of a function wrapper (parsed once per process)."""
        return _parse_function(self.source)


@lru_cache(maxsize=1024)
def _imported(package: bytes, name: bytes) -> re.Pattern[bytes]:
    """``from [a.b.]package import (x, name)``."""
    return re.compile(
        rb"\bfrom\s+(?:[\w.]*\.)?"
        + re.escape(package)
        + rb"\s+import\s*\(?[\w\s,\\]*?\b"
        + re.escape(name)
        + rb"\b"
    )


def _imports(data: bytes, package: bytes, name: bytes) -> bool:
    return _imported(package, name).search(data) is not None


@lru_cache(maxsize=4096)
def _called(name: bytes) -> re.Pattern[bytes]:
    """``name(`` (a call, a constructor, not a definition), or ``name as`` (an import
    under another name)."""
    return re.compile(rb"(?<!def )(?<!class )\b" + re.escape(name) + rb"(?:\s*\(|\s+as\b)")


def _calls(data: bytes, name: bytes) -> bool:
    """Whether ``data`` calls ``name`` (or imports it under another name).

    The pattern is tried where ``name`` occurs (its assertions look behind that point):
    searched for, a pattern that starts with assertions is tried at every byte of the file.
    """
    if not holds_word(data, name):
        return False
    called = _called(name)
    at = data.find(name)
    while at >= 0:
        if called.match(data, at) is not None or _partial_of(data, at, name):
            return True
        at = data.find(name, at + 1)
    return False


def _partial_of(data: bytes, at: int, name: bytes) -> bool:
    """Whether ``name`` at ``at`` is the function a ``partial(name, ...)`` binds (its
    call, made later)."""
    end = at + len(name)
    return (
        _BINDS.match(data, end) is not None
        and _PARTIAL_BEFORE.search(data, max(0, at - 400), at) is not None
    )


_BINDS = re.compile(rb"\s*,")
# ``partial(`` then blanks and comments up to the end (searched before the name).
_PARTIAL_BEFORE = re.compile(rb"\bpartial\(\s*(?:#[^\n]*\s*)*$")


@lru_cache(maxsize=1024)
def _parse_function(source: str) -> cst.FunctionDef:
    import libcst as cst  # only a cache miss evaluates a wrapper, and needs the parser

    statement = cst.parse_module(source).body[0]
    assert isinstance(statement, cst.FunctionDef)
    return statement


@dataclass(frozen=True)
class WrapperIndex:
    """Wrappers and setters by qualified name."""

    wrappers: Mapping[str, Wrapper] = field(default_factory=dict)
    setters: Mapping[str, Wrapper] = field(default_factory=dict)
    by_short: Mapping[bytes, tuple[Wrapper, ...]] = field(default_factory=dict)
    registries: Mapping[str, Wrapper] = field(default_factory=dict)

    @classmethod
    def of(cls, facts: Iterable[Wrapper]) -> WrapperIndex:
        ordered = sorted(facts, key=lambda w: (w.qualname, w.kind))
        readers = {w.qualname: w for w in ordered if w.kind in (FUNCTION, CLASS)}
        setters = {w.qualname: w for w in ordered if w.kind == SETTER}
        registries = {w.qualname: w for w in ordered if w.kind == REGISTRY}
        groups: dict[bytes, list[Wrapper]] = {}
        for wrapper in ordered:
            groups.setdefault(wrapper.short_name.encode(), []).append(wrapper)
        by_short = {short: tuple(group) for short, group in groups.items()}
        return cls(readers, setters, by_short, registries)

    @property
    def facts(self) -> tuple[Wrapper, ...]:
        """Every wrapper, setter and registry."""
        return (*self.wrappers.values(), *self.setters.values(), *self.registries.values())

    def callable_from(self, data: bytes, path: str) -> tuple[Wrapper, ...]:
        """The wrappers and setters a file (its bytes and path) can call, and those they
        call in turn.

        Each short name is looked for once, however many modules define it (a tree
        that vendors a package twice defines every wrapper twice).
        """
        chosen: dict[tuple[str, str], Wrapper] = {}
        if not self.by_short:
            return ()
        for short, group in self.by_short.items():
            if not _calls(data, short) and not (
                any(w.kind == REGISTRY for w in group) and holds_word(data, short)
            ):
                continue  # named, but never called nor imported under another name
            chosen.update(
                ((w.qualname, w.kind), w)
                for w in self.by_short[short]
                if w.reachable_from(data, path)
            )
        pending = list(chosen.values())
        while pending:
            caller = pending.pop()
            source = caller.source.encode()
            for short, group in self.by_short.items():
                if not _calls(source, short):
                    continue
                for wrapper in group:
                    key = (wrapper.qualname, wrapper.kind)
                    # A function nested in another (no anchors) is called only in its file.
                    if key not in chosen and (wrapper.anchors or wrapper.path == caller.path):
                        chosen[key] = wrapper
                        pending.append(wrapper)
        return tuple(chosen[key] for key in sorted(chosen))

    def reached_from(self, qualnames: Iterable[str | None]) -> frozenset[str]:
        """``qualnames`` and the wrappers their code calls, and those theirs, by name: a
        wrapper reached through another (Liger-Kernel's ``_per_op_env``, under
        ``resolve_impl`` under ``dispatch``) is called wherever the outer one is."""
        found = {q for q in qualnames if q is not None and q in self.wrappers}
        pending = list(found)
        while pending:
            source = self.wrappers[pending.pop()].source.encode()
            for short, group in self.by_short.items():
                if not _calls(source, short):
                    continue
                for wrapper in group:
                    if wrapper.kind != SETTER and wrapper.qualname not in found:
                        found.add(wrapper.qualname)
                        pending.append(wrapper.qualname)
        return frozenset(found)

    @property
    def short_names(self) -> frozenset[str]:
        return frozenset(w.short_name for w in self.facts)

    def lookup(self, qualname: str) -> Wrapper | None:
        """The wrapper ``qualname`` names (see ``_find``)."""
        return _find(self.wrappers, self.by_short, qualname)

    def lookup_setter(self, qualname: str) -> Wrapper | None:
        """The setter ``qualname`` names (see ``_find``)."""
        return _find(self.setters, self.by_short, qualname, kind=SETTER)

    def lookup_registry(self, qualname: str) -> Wrapper | None:
        """The registry (a class of descriptors or an instance of one) ``qualname`` names
        (see ``_find``)."""
        return _find(self.registries, self.by_short, qualname, kind=REGISTRY)


def _find(
    table: Mapping[str, Wrapper],
    by_short: Mapping[bytes, tuple[Wrapper, ...]],
    qualname: str,
    *,
    kind: str | None = None,
) -> Wrapper | None:
    """``qualname`` exactly; else the one wrapper of that name that it names by a
    module-path suffix (``from pkg.util import flag`` in a namespace package finds
    ``util.flag``) or through a package that re-exports it (``from pkg import flag``
    finds ``pkg.envs.flag``, as ``pkg/__init__.py`` imports it; in a namespace package,
    by the same suffix). Of several, the one whose file's path spells the module named
    (``sglang/srt/utils/common.py`` for ``sglang.srt.utils.common``, where a namespace
    package elsewhere also defines a ``common.get_bool_env_var``)."""
    found = table.get(qualname)
    if found is not None or not table:
        return found
    module, _, short = qualname.rpartition(".")
    matches = [
        w
        for w in by_short.get(short.encode(), ())
        if (w.kind == kind if kind is not None else w.kind in (FUNCTION, CLASS))
        and (
            qualname.endswith("." + w.qualname)
            or w.qualname.endswith("." + qualname)
            or any(module == p or module.endswith("." + p) for p in w.exported_by)
            or any(module == p or module.endswith("." + p) for p in w.imported_by)
        )
    ]
    if len(matches) > 1:
        matches = [w for w in matches if _spelled_by_path(w, module)]
    return matches[0] if len(matches) == 1 else None


def _spelled_by_path(wrapper: Wrapper, module: str) -> bool:
    """Whether the path of ``wrapper``'s file, as a dotted module name, ends with ``module``
    (or ``module`` with it: the scan may start inside the package)."""
    path = wrapper.path.removesuffix(".py").removesuffix("/__init__").replace("/", ".")
    return path == module or path.endswith("." + module) or module.endswith("." + path)
