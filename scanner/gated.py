"""The code a knob gates, as units with digests: what a triage verdict was measured on.

For a knob of a scan: the units its sites sit in, the units that hold the branches its
value decides (``scanner.reach``), and every function and method those branches reach
through the tree's calls, to the depth the reach follows (the kernel functions, Triton
``@jit`` bodies, autograd Functions' ``forward`` and ``backward``). Each is named by its
path and its name in the module (``scanner.code_units``) and carries a digest that
comments, formatting and docstrings do not change. Code outside the tree (torch, triton)
is not the tree's: its versions say what it was.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from scanner.code_units import Unit, Units, unit_around
from scanner.languages import Language
from scanner.model import Knob, ScanResult, Site
from scanner.reach.evidence import CodeReach
from scanner.reach.modules import Module, Tree
from scanner.source.files import SourceError, decode_source, read_bytes

MAX_MODULE_BYTES = 4 * 1024 * 1024  # as the reach reads modules


@dataclass(frozen=True, slots=True)
class GatedUnit:
    """One unit of the code a knob gates."""

    path: str  # as the sites' paths: relative to the scan's root, POSIX
    name: str  # ``f``, ``C.m``, ``TABLE[KEY]``, ``<module>`` (see scanner.code_units)
    line: int
    digest: str


def gated_code(
    result: ScanResult, root: Path, names: Iterable[str]
) -> dict[str, tuple[GatedUnit, ...]]:
    """For each knob of ``names`` that ``result`` found, the units of the code it gates,
    by path and line (``root``: the folder the scan's paths are relative to)."""
    knobs = [k for k in (result.knob(n) for n in dict.fromkeys(names)) if k is not None]
    if not knobs:
        return {}
    tree = Tree({rel: (root / rel, module) for rel, module in result.modules})
    code = CodeReach(tree, knobs)
    return {knob.name: _units(code, knob) for knob in knobs}


def _units(code: CodeReach, knob: Knob) -> tuple[GatedUnit, ...]:
    wanted: dict[tuple[str, str], Module] = {}
    for site in knob.sites:
        module = code.tree.module_at(site.path) if site.language is Language.PYTHON else None
        if module is not None:
            wanted[(module.rel, _around_site(module, site))] = module
    for branch in code.branches_of(knob):
        module = branch.module
        chain = [branch.test, *module.ancestors(branch.test)]
        wanted[(module.rel, unit_around(module.tree, chain))] = module
        for reached, local in code.reach.reached(code.found(branch)).values():
            if not isinstance(reached.definitions.get(local), ast.ClassDef):
                wanted[(reached.rel, local)] = reached
    found = []
    units: dict[str, Units] = {}
    for (rel, name), module in wanted.items():
        made = units.setdefault(rel, Units(module.tree)).unit(name)
        if made is not None:
            found.append(GatedUnit(rel, name, made.line, made.digest))
    return tuple(sorted(found, key=lambda u: (u.path, u.line, u.name)))


def _around_site(module: Module, site: Site) -> str:
    """The unit the site's read sits in."""
    nodes = [
        n
        for n in module.locate.nodes_on(site.line)
        if getattr(n, "lineno", None) == site.line
        and module.column(site.line, getattr(n, "col_offset", -1)) == site.column
    ]
    node = nodes[-1] if nodes else module.locate.innermost(site.line)
    if node is None:
        return unit_around(module.tree, [])
    return unit_around(module.tree, [node, *module.ancestors(node)])


def units_now(
    root: Path, wanted: Mapping[str, Iterable[str]]
) -> dict[tuple[str, str], Unit | None]:
    """The units ``wanted`` (names by path, relative to ``root``) as the files hold them
    now; None for a unit whose file or code is gone (or cannot be read or parsed)."""
    found: dict[tuple[str, str], Unit | None] = {}
    for path, names in wanted.items():
        tree = _parse(root / path)
        units = Units(tree) if tree is not None else None
        for name in names:
            found[(path, name)] = units.unit(name) if units is not None else None
    return found


def _parse(path: Path) -> ast.Module | None:
    try:
        return ast.parse(decode_source(read_bytes(path, MAX_MODULE_BYTES)))
    except (SourceError, OSError, ValueError, SyntaxError, RecursionError, MemoryError):
        return None
