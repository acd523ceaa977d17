"""Constants other modules of the tree define: ``from pkg.names import KNOB``.

A read whose name is a constant imported from another module is resolved by
reading that module's top-level assignments with ``ast`` (never importing it).
The module's file is found beside the importing file, by package names. The
files read are recorded with a digest of their bytes, so a cached result that
used them is recomputed when one of them changes.
"""

from __future__ import annotations

import ast
import hashlib
import os
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from scanner.accessors import holds_word
from scanner.source.files import MAX_FILE_BYTES, SourceError, read_bytes
from scanner.source.kept_classes import enum_members

MAX_ANCESTORS = 6  # folders above a file's tree searched for the package an import names
MAX_HOPS = 4  # re-exports followed from one module to the one defining the constant
MAX_BYTES = 512 * 1024  # a module of constants is small; a bigger one is not read
_CONSTANT_NAME = re.compile(r"_*[A-Z][A-Z0-9_]*")  # how modules spell constants
_LITERAL = (ast.Constant, ast.Tuple, ast.List, ast.Set, ast.Dict, ast.UnaryOp, ast.BinOp)


def _digest(data: bytes) -> str:
    return "digest:" + hashlib.sha256(data).hexdigest()


def _mention(name: str, data: bytes | None) -> str:
    found = data is not None and holds_word(data, name.encode())
    return f"names:{name}:{'yes' if found else 'no'}"


def _exports(name: str, package: str, sources: tuple[str, ...], data: bytes | None) -> str:
    """Whether a package's ``__init__.py`` (its bytes) re-exports ``name``: names it, or
    star-imports one of ``sources`` (the module defining it, or a package nearer to it
    that re-exports it): ``from .common import *``. In a namespace package a module's
    name is a suffix of the one an absolute import spells (``utils.common`` for
    ``from sglang.srt.utils.common import *``)."""
    found = data is not None and (
        holds_word(data, name.encode())
        or any(
            star == source or star.endswith("." + source)
            for star in _star_imports(data, package)
            for source in sources
        )
    )
    return f"exports:{name}:{package}:{','.join(sources)}:{'yes' if found else 'no'}"


@lru_cache(maxsize=1024)
def _star_imports(data: bytes, package: str) -> tuple[str, ...]:
    """The absolute modules a package's ``__init__.py`` imports with ``from m import *``."""
    if b"*" not in data:
        return ()
    try:
        tree = ast.parse(data)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return ()
    found: list[str] = []
    for statement in tree.body:
        if isinstance(statement, ast.ImportFrom) and any(a.name == "*" for a in statement.names):
            source = (statement.level, statement.module or "", "*")
            found.append(_absolute(package, True, source)[0])
    return tuple(found)


def still(path: Path, fact: str) -> bool:
    """Whether what was learnt from a file (``digest:...`` of its bytes, or ``names:X:yes``
    whether it names X) still holds."""
    try:
        status = path.stat()
    except OSError:
        return fact.startswith(("names:", "exports:")) and fact.endswith(":no")
    return _holds(str(path), status.st_mtime_ns, status.st_size, fact)


def forget() -> None:
    """Forget what was read of other files (a new scan reads them again)."""
    _holds.cache_clear()


@lru_cache(maxsize=4096)
def _holds(path: str, mtime_ns: int, size: int, fact: str) -> bool:
    """``still`` for one version of a file, within one scan (which checks the same
    ``__init__.py`` for many files)."""
    try:
        data: bytes | None = read_bytes(Path(path), MAX_FILE_BYTES)
    except SourceError:
        data = None
    if fact.startswith("names:"):
        return _mention(fact.split(":")[1], data) == fact
    if fact.startswith("exports:"):
        _, name, package, sources, _ = fact.split(":")
        return _exports(name, package, tuple(sources.split(",")), data) == fact
    return data is not None and _digest(data) == fact


class ConstantLoader:
    """Looks up ``module.NAME`` in the files of the tree the importing file belongs to."""

    def __init__(self, path: Path, module: str, rel: str | None = None) -> None:
        self.path = path.absolute()  # the file whose imports are followed
        depth = module.count(".") + (1 if path.name == "__init__.py" else 0)
        self.root = self.path.parents[min(depth, len(self.path.parents) - 1)]
        # The folder scanned (``rel``: the file's path in it): no package is looked for
        # above it, so a tree reads the same beside any other checkout.
        parts = Path(rel).parts if rel is not None else ()
        inside = 0 < len(parts) <= len(self.path.parents) and ".." not in parts
        self.top = self.path.parents[len(parts) - 1] if inside else None
        # What was learnt from other files: path relative to the root -> a fact (see still).
        self.read: dict[str, str] = {}
        self._modules: dict[str, Module | None] = {}

    def exported_by(self, module: str, name: str) -> tuple[str, ...]:
        """The packages above ``module`` whose ``__init__.py`` re-exports ``name``, so that
        ``from package import name`` reaches it, nearest first: it names it, or star-imports
        ``module`` (or a package nearer to it that re-exports it), where ``module`` exports
        ``name`` to a star import (its ``__all__`` lists it; without one, it is public)."""
        found: list[str] = []
        starred: bool | None = None
        parts = module.split(".")[:-1]
        while parts:
            path = self.root.joinpath(*parts, "__init__.py")
            try:
                data: bytes | None = read_bytes(path, MAX_FILE_BYTES)
            except SourceError:
                data = None
            package = ".".join(parts)
            # Only whether it names it or star-imports it matters: an edit elsewhere in it
            # changes nothing here (``__all__`` is the module's own, analysed with it).
            fact = _exports(name, package, (module, *found), data)
            self.read[f"{path.relative_to(self.root).as_posix()}\0{name}"] = fact
            if fact.endswith(":yes"):
                named = data is not None and holds_word(data, name.encode())
                if not named and starred is None:
                    starred = self._star_exported(module, name)
                if named or starred:
                    found.append(package)
            parts.pop()
        return tuple(found)

    def _star_exported(self, module: str, name: str) -> bool:
        """Whether ``from module import *`` binds ``name``: listed in the module's
        ``__all__`` (a literal), or public when it has none. (The module is the one being
        analysed: nothing is recorded of it.)"""
        base = self.root.joinpath(*module.split("."))
        listed: object = None
        for path in (base.with_suffix(".py"), base / "__init__.py"):
            try:
                data = read_bytes(path, MAX_BYTES)
            except SourceError:
                continue
            found = _module_of(data, _digest(data), path.name == "__init__.py")
            listed = found.values.get("__all__") if found is not None else None
            break
        if isinstance(listed, tuple | frozenset):
            return name in listed
        return not name.startswith("_")

    def __call__(self, qualname: str) -> object:
        """The value of the constant ``qualname``, or None when it is not one (also
        through modules that import it from another: ``pkg/__init__.py`` re-exports)."""
        module, _, name = qualname.rpartition(".")
        if not module or _CONSTANT_NAME.fullmatch(name) is None:
            return None
        value = self._follow(module, name, "")
        owner = module.rpartition(".")[2]
        if value is None and "." in module and owner[:1].isupper():
            # ``Mode.OFF``: a member of an enumeration the module defines or imports.
            value = self._follow(module.rpartition(".")[0], owner, "." + name)
        return value

    def _follow(self, module: str, name: str, member: str) -> object:
        """``name`` (with ``member``, one of its members) in ``module``, through imports."""
        for _ in range(MAX_HOPS):
            found = self._module_above(module)
            if found is None:
                return None
            if name + member in found.values:
                return found.values[name + member]
            source = found.imported.get(name)
            if source is None:
                return None
            module, name = _absolute(module, found.package, source)
        return None

    def imported_by(self, module: str, name: str) -> tuple[str, ...]:
        """The packages of the tree that re-export ``name`` of ``module`` (whose file is
        the loader's) through a module that imports it: a package beside the module's folder
        or one above it, up to the tree's root, whose ``__init__.py`` star-imports a module
        that imports ``name`` from ``module`` (sglang's ``utils/__init__.py`` star-imports
        ``utils.common``, which imports ``envs`` from ``sglang.srt.environ``)."""
        found: list[str] = []
        folder = self.path.parent
        while True:
            for init in sorted(folder.glob("*/__init__.py")):
                package = Path(os.path.relpath(init.parent, self.root)).as_posix()
                if package.startswith(".."):
                    continue
                dotted = package.replace("/", ".")
                located = self._module_by_suffix(dotted)
                if located is None:
                    continue
                for level, target in located[1].stars:
                    starred = self._module_by_suffix(
                        _absolute(dotted, True, (level, target, name))[0]
                    )
                    if starred is None:
                        continue
                    source = starred[1].imported.get(name)
                    listed = starred[1].values.get("__all__")
                    if (
                        source is None
                        or source[2] != name
                        or (isinstance(listed, tuple) and name not in listed)
                    ):
                        continue
                    origin = _absolute(starred[0], starred[1].package, source)[0]
                    if origin == module or origin.endswith("." + module):
                        found.append(dotted)
                        break
            if folder == self.root or self.root not in folder.parents:
                break
            folder = folder.parent
        return tuple(dict.fromkeys(found))

    def origin(self, qualname: str) -> str | None:
        """The module-qualified name where ``qualname`` is bound other than by an import,
        following imports and star imports (``from sglang.srt.utils import envs``, where
        ``utils/__init__.py`` star-imports ``utils.common``, which imports ``envs`` from
        ``sglang.srt.environ``); None when a module on the way is not in the tree."""
        module, _, name = qualname.rpartition(".")
        for _ in range(MAX_HOPS):
            located = self._module_by_suffix(module)
            if located is None:
                return None
            module, found = located
            if name in found.defined:
                return f"{module}.{name}"
            source = found.imported.get(name)
            if source is not None:
                module, name = _absolute(module, found.package, source)
                continue
            for level, target in found.stars:
                starred = self._module_by_suffix(
                    _absolute(module, found.package, (level, target, name))[0]
                )
                if starred is None:
                    continue
                inner = starred[1]
                listed = inner.values.get("__all__")
                if (name in inner.defined or name in inner.imported) and (
                    name in listed if isinstance(listed, tuple) else not name.startswith("_")
                ):
                    module = starred[0]
                    break
            else:
                return None
        return None

    def _module_by_suffix(self, module: str) -> tuple[str, Module] | None:
        """``module`` in the tree, or the longest suffix of it that is (the tree's root is
        inside a namespace package: ``sglang.srt.utils`` is ``utils`` under ``sglang/srt``)."""
        parts = module.split(".") if module else []
        found = self._module_above(module) if parts else None
        if found is not None:
            return module, found
        while len(parts) > 1:
            parts = parts[1:]
            name = ".".join(parts)
            found = self._module(name)
            if found is not None:
                return name, found
        return None

    def _module_above(self, module: str) -> Module | None:
        """``module`` under the root, or under a folder above it: an absolute import from a
        folder that is no package (``sglang/srt`` has no ``__init__.py``, so
        ``sglang/srt/models/x.py``'s root is ``models`` and ``sglang.srt.utils`` lies above)."""
        found = self._module(module)
        base = self.root
        for _ in range(MAX_ANCESTORS if found is None else 0):
            if base == self.top or (self.top is not None and self.top not in base.parents):
                break
            base = base.parent
            found = self._module(module, base)
            if found is not None:
                break
        return found

    def _module(self, module: str, root: Path | None = None) -> Module | None:
        key = module if root is None else f"{root}\0{module}"
        if key in self._modules:
            return self._modules[key]
        found: Module | None = None
        base = (root or self.root).joinpath(*module.split("."))
        for path in (base.with_suffix(".py"), base / "__init__.py"):
            if path.is_file():
                found = self._load(path)
                break
        self._modules[key] = found
        return found

    def _load(self, path: Path) -> Module | None:
        try:
            data = read_bytes(path, MAX_BYTES)
        except SourceError:
            return None
        digest = _digest(data)
        self.read[Path(os.path.relpath(path, self.root)).as_posix()] = digest
        return _module_of(data, digest, path.name == "__init__.py")


@dataclass(frozen=True)
class Module:
    """What one module defines that names can come from: its literal constants, and the
    names it imports from others (``name -> (level, module, original name)``)."""

    values: dict[str, object]
    imported: dict[str, tuple[int, str, str]]
    package: bool
    defined: frozenset[str] = frozenset()  # names its top level binds other than by import
    stars: tuple[tuple[int, str], ...] = ()  # ``from m import *``: (level, module)


def _absolute(module: str, package: bool, source: tuple[int, str, str]) -> tuple[str, str]:
    """The module and name an import statement of ``module`` names."""
    level, target, name = source
    if level == 0:
        return target, name
    parts = module.split(".") if package else module.split(".")[:-1]
    parts = parts[: len(parts) - (level - 1)] if level > 1 else parts
    base = ".".join([*parts, target] if target else parts)
    return base, name


@lru_cache(maxsize=256)
def _module_of(data: bytes, digest: str, package: bool) -> Module | None:
    """The literal constants a module's text binds once at its top level, and its
    imports (cached by the digest: a scan meets the same module from many files)."""
    try:
        tree = ast.parse(data)
    except (SyntaxError, ValueError, MemoryError, RecursionError):  # see narrow.Source.parse
        return None
    values: dict[str, object] = {}
    imported: dict[str, tuple[int, str, str]] = {}
    seen: set[str] = set()
    defined: set[str] = set()
    stars: list[tuple[int, str]] = []
    for statement in tree.body:
        if isinstance(statement, ast.ImportFrom):
            for alias in statement.names:
                if alias.name != "*":
                    local = alias.asname or alias.name
                    imported[local] = (statement.level, statement.module or "", alias.name)
                else:
                    stars.append((statement.level, statement.module or ""))
            continue
        if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            defined.add(statement.name)
        if isinstance(statement, ast.ClassDef):
            values.update((f"{statement.name}.{k}", v) for k, v in enum_members(statement).items())
        if isinstance(statement, ast.Assign | ast.AnnAssign) and statement.value is not None:
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            for target in targets:
                if not isinstance(target, ast.Name):
                    continue
                defined.add(target.id)
                if target.id in seen:
                    values.pop(target.id, None)  # bound twice: not a constant
                    continue
                seen.add(target.id)
                value = _literal(statement.value)
                if value is not None:
                    values[target.id] = value
    return Module(values, imported, package, frozenset(defined), tuple(stars))


def _literal(node: ast.expr) -> object:
    if not isinstance(node, _LITERAL):
        return None
    try:
        value = ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None
    if isinstance(value, list):
        return tuple(value)
    if isinstance(value, set):
        return frozenset(value)
    return value if isinstance(value, str | int | float | bool | tuple | frozenset | dict) else None
