"""A package that loads another directory of the tree as itself.

A compatibility package's ``__init__.py`` builds a spec for its own name whose submodules are
searched in another directory (flashinfer-python 0.7.2 b12x/__init__.py:37-45:
``_root = Path(find_spec("flashinfer").origin).parent / "experimental" / "b12x"``, then
``spec_from_file_location(__name__, _root / "_api.py", submodule_search_locations=[str(_root)])``
and ``sys.modules[__name__] = module_from_spec(_spec)``): ``b12x._lib.x`` is the module
``flashinfer/experimental/b12x/_lib/x.py``. The directory is read from the expression alone:
``Path(...)``, ``/ "literal"``, ``.parent``, ``os.path.dirname``/``join``, ``__file__`` and
the ``.origin`` of ``importlib.util.find_spec("pkg")`` for a package of the tree.
"""

from __future__ import annotations

import ast
import posixpath
from collections.abc import Callable

_SPEC = "spec_from_file_location"
_PATHS = frozenset({"Path", "pathlib.Path", "PurePath", "pathlib.PurePath"})


def loaded_directory(
    tree: ast.Module, rel: str, package_file: Callable[[str], str | None]
) -> str | None:
    """The directory (relative to the scan root) whose modules the package ``__init__.py``
    at ``rel`` loads as its own submodules; None where it loads none or the code does not
    say. ``package_file``: the ``__init__.py`` of a package of the tree, by dotted name."""
    bound = _module_bindings(tree)
    for node in ast.walk(tree):
        if not (
            isinstance(node, ast.Call)
            and _called(node.func).rpartition(".")[2] == _SPEC
            and node.args
        ):
            continue
        first = node.args[0]
        if not (isinstance(first, ast.Name) and first.id == "__name__"):
            continue
        for keyword in node.keywords:
            value = keyword.value
            if keyword.arg != "submodule_search_locations":
                continue
            if not (isinstance(value, ast.List | ast.Tuple) and len(value.elts) == 1):
                return None
            return _path(value.elts[0], bound, rel, package_file, 0)
    return None


def _module_bindings(tree: ast.Module) -> dict[str, ast.expr]:
    """The module-level names bound once, to the expression they are bound to."""
    found: dict[str, ast.expr] = {}
    seen: set[str] = set()
    for statement in tree.body:
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
            target = statement.targets[0]
            if isinstance(target, ast.Name):
                if target.id in seen:
                    found.pop(target.id, None)
                else:
                    found[target.id] = statement.value
                seen.add(target.id)
    return found


_MAX_DEPTH = 12  # expressions read inside one another


def _path(
    node: ast.expr,
    bound: dict[str, ast.expr],
    rel: str,
    package_file: Callable[[str], str | None],
    depth: int,
) -> str | None:
    """The path ``node`` evaluates to, relative to the scan root; None where unknown."""
    if depth > _MAX_DEPTH:
        return None

    def inner(child: ast.expr) -> str | None:
        return _path(child, bound, rel, package_file, depth + 1)

    if isinstance(node, ast.Name):
        if node.id == "__file__":
            return rel
        value = bound.get(node.id)
        return inner(value) if value is not None else None
    if isinstance(node, ast.Call):
        name = _called(node.func)
        if name in _PATHS or name == "str":
            return inner(node.args[0]) if len(node.args) == 1 and not node.keywords else None
        if name == "os.path.dirname" and len(node.args) == 1:
            found = inner(node.args[0])
            return posixpath.dirname(found) if found is not None else None
        if name == "os.path.join" and node.args:
            found = inner(node.args[0])
            parts = [_literal(a) for a in node.args[1:]]
            if found is None or any(p is None for p in parts):
                return None
            return posixpath.normpath(posixpath.join(found, *(p for p in parts if p)))
        return None
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
        found, part = inner(node.left), _literal(node.right)
        if found is None or part is None:
            return None
        return posixpath.normpath(posixpath.join(found, part))
    if isinstance(node, ast.Attribute):
        if node.attr == "parent":
            found = inner(node.value)
            return posixpath.dirname(found) if found is not None else None
        if node.attr == "origin":
            return _origin(node.value, bound, package_file)
    return None


def _origin(
    node: ast.expr, bound: dict[str, ast.expr], package_file: Callable[[str], str | None]
) -> str | None:
    """``find_spec("pkg").origin``: the ``__init__.py`` of the tree's package ``pkg``."""
    if isinstance(node, ast.Name):
        value = bound.get(node.id)
        node = value if value is not None else node
    if (
        isinstance(node, ast.Call)
        and _called(node.func).rpartition(".")[2] == "find_spec"
        and len(node.args) == 1
        and (name := _literal(node.args[0])) is not None
    ):
        return package_file(name)
    return None


def _literal(node: ast.expr) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None


def _called(func: ast.expr) -> str:
    """The dotted name a call is written with (``importlib.util.find_spec``)."""
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        outer = _called(func.value)
        return f"{outer}.{func.attr}" if outer else ""
    return ""
