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
import re
from functools import lru_cache
from pathlib import Path

MAX_BYTES = 512 * 1024  # a module of constants is small; a bigger one is not read
_CONSTANT_NAME = re.compile(r"_*[A-Z][A-Z0-9_]*")  # how modules spell constants
_LITERAL = (ast.Constant, ast.Tuple, ast.List, ast.Set, ast.Dict, ast.UnaryOp, ast.BinOp)


def digest(path: Path) -> str | None:
    """A digest of a file's bytes (None when it cannot be read)."""
    try:
        return hashlib.blake2b(path.read_bytes(), digest_size=16).hexdigest()
    except OSError:
        return None


class ConstantLoader:
    """Looks up ``module.NAME`` in the files of the tree the importing file belongs to."""

    def __init__(self, path: Path, module: str) -> None:
        depth = module.count(".") + (1 if path.name == "__init__.py" else 0)
        root = path.absolute().parent
        for _ in range(depth):
            root = root.parent
        self.root = root
        self.read: dict[str, str] = {}  # path relative to the root -> digest of what was read
        self._modules: dict[str, dict[str, object] | None] = {}

    def exported_by(self, module: str, name: str) -> tuple[str, ...]:
        """The packages above ``module`` whose ``__init__.py`` names ``name`` (re-exports it,
        so that ``from package import name`` reaches it), nearest first, while they do."""
        found: list[str] = []
        parts = module.split(".")[:-1]
        while parts:
            package = ".".join(parts)
            path = self.root.joinpath(*parts, "__init__.py")
            text = self._text(path)
            if text is None or re.search(rb"\b" + re.escape(name.encode()) + rb"\b", text) is None:
                break
            found.append(package)
            parts.pop()
        return tuple(found)

    def _text(self, path: Path) -> bytes | None:
        try:
            data = path.read_bytes()
        except OSError:
            return None
        rel = path.relative_to(self.root).as_posix()
        self.read[rel] = hashlib.blake2b(data, digest_size=16).hexdigest()
        return data

    def __call__(self, qualname: str) -> object:
        """The value of the constant ``qualname``, or None when it is not one."""
        module, _, name = qualname.rpartition(".")
        if not module or _CONSTANT_NAME.fullmatch(name) is None:
            return None
        constants = self._constants(module)
        return constants.get(name) if constants is not None else None

    def _constants(self, module: str) -> dict[str, object] | None:
        if module in self._modules:
            return self._modules[module]
        found: dict[str, object] | None = None
        base = self.root.joinpath(*module.split("."))
        for path in (base.with_suffix(".py"), base / "__init__.py"):
            if path.is_file():
                found = self._load(path)
                break
        self._modules[module] = found
        return found

    def _load(self, path: Path) -> dict[str, object] | None:
        try:
            if path.stat().st_size > MAX_BYTES:
                return None
            data = path.read_bytes()
        except OSError:
            return None
        digest = hashlib.blake2b(data, digest_size=16).hexdigest()
        self.read[path.relative_to(self.root).as_posix()] = digest
        return _constants_of(data, digest)


@lru_cache(maxsize=256)
def _constants_of(data: bytes, digest: str) -> dict[str, object] | None:
    """The literal constants a module's text binds once at its top level (cached by the
    digest: a scan meets the same module of names from many files)."""
    try:
        tree = ast.parse(data)
    except (SyntaxError, ValueError):
        return None
    values: dict[str, object] = {}
    seen: set[str] = set()
    for statement in tree.body:
        if isinstance(statement, ast.Assign | ast.AnnAssign) and statement.value is not None:
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            for target in targets:
                if not isinstance(target, ast.Name):
                    continue
                if target.id in seen:
                    values.pop(target.id, None)  # bound twice: not a constant
                    continue
                seen.add(target.id)
                value = _literal(statement.value)
                if value is not None:
                    values[target.id] = value
    return values


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
