"""What the names of one module refer to: imports, aliases, functions, constants.

The scanner resolves ``_os.environ.get`` and ``ENV.get`` to ``os.environ.get``
through this table instead of comparing spellings, and resolves a call such as
``util.env_flag(...)`` to the qualified name ``pkg.util.env_flag``. The table
itself (``Symbols``) lives in namespace.py, free of libcst, so that cached
results load without the parser.
"""

from __future__ import annotations

from collections.abc import Collection

import libcst as cst

from scanner.accessors import OS_NAMES
from scanner.syntax.namespace import Symbols, resolve_relative
from scanner.syntax.walk import nodes


def qualify(
    symbols: Symbols, node: cst.BaseExpression, shadowed: Collection[str] = ()
) -> str | None:
    """The dotted name ``node`` refers to in ``symbols``' module, or None when it is not
    a module-level name."""
    if isinstance(node, cst.Name):
        name = node.value
        if name in shadowed:
            return None
        target = symbols.imports.get(name)
        if target is not None:
            return target
        if name in symbols.functions:
            return f"{symbols.module}.{name}" if symbols.module else name
        return None
    if isinstance(node, cst.Attribute):
        base = qualify(symbols, node.value, shadowed)
        return f"{base}.{node.attr.value}" if base is not None else None
    return None


def dotted(node: cst.BaseExpression) -> str:
    """``a.b.c`` for an Attribute/Name chain (as written, unresolved)."""
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        return f"{dotted(node.value)}.{node.attr.value}"
    return ""


class _ImportCollector:
    def __init__(self, module: str, is_package: bool) -> None:
        self.module = module
        self.is_package = is_package
        self.imports: dict[str, str] = {}
        self.star_modules: list[str] = []

    def visit_Import(self, node: cst.Import) -> None:
        for alias in node.names:
            full = dotted(alias.name)
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                self.imports[alias.asname.name.value] = full
            else:
                head = full.split(".", 1)[0]
                self.imports.setdefault(head, head)

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        level = len(node.relative)
        target = dotted(node.module) if node.module is not None else ""
        base = resolve_relative(self.module, self.is_package, level, target)
        if isinstance(node.names, cst.ImportStar):
            if base == "os":
                for name in OS_NAMES:  # the os names the scanner knows
                    self.imports[name] = f"os.{name}"
            elif base not in self.star_modules:
                self.star_modules.append(base)
            return
        for alias in node.names:
            name = dotted(alias.name)
            local = name
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                local = alias.asname.name.value
            self.imports[local] = f"{base}.{name}" if base else name

    # Function and class bodies are visited too: a function-local `import os`
    # binds the same name for the reads inside it.


def collect_symbols(module: cst.Module, name: str, is_package: bool) -> Symbols:
    """Imports anywhere in ``module``, module-level functions, and ``os`` aliases.

    Constants are filled in by the evaluator, which knows how to compute them.
    """
    collector = _ImportCollector(name, is_package)
    for node in nodes(module):
        if isinstance(node, cst.Import):
            collector.visit_Import(node)
        elif isinstance(node, cst.ImportFrom):
            collector.visit_ImportFrom(node)
    imports = collector.imports
    functions: set[str] = set()
    for statement in module.body:
        if isinstance(statement, cst.FunctionDef | cst.ClassDef):
            functions.add(statement.name.value)
    stars = tuple(collector.star_modules)
    if stars and "os" not in imports and "os" not in functions:
        # `os.environ` with no `os` bound here: a star import brought it (Python would
        # raise NameError otherwise), and the module it names is the standard one.
        imports["os"] = "os"
    plain = Symbols(
        module=name, imports=imports, functions=frozenset(functions), star_modules=stars
    )
    # `environ = os.environ`, `_getenv = os.getenv`: aliases of the os module's names.
    aliases: dict[str, str] = {}
    for target, value in module_assignments(module):
        qualified = qualify(plain, value)
        if qualified is not None and (qualified == "os" or qualified.startswith("os.")):
            aliases[target] = qualified
    if not aliases:
        return plain
    return Symbols(
        module=name,
        imports={**imports, **aliases},
        functions=plain.functions,
        star_modules=stars,
    )


def module_assignments(module: cst.Module) -> list[tuple[str, cst.BaseExpression]]:
    """``(name, value)`` for each plain ``name = value`` at module level, in order."""
    found: list[tuple[str, cst.BaseExpression]] = []
    for statement in module.body:
        if not isinstance(statement, cst.SimpleStatementLine):
            continue
        for small in statement.body:
            if isinstance(small, cst.Assign):
                for target in small.targets:
                    if isinstance(target.target, cst.Name):
                        found.append((target.target.value, small.value))
            elif (
                isinstance(small, cst.AnnAssign)
                and small.value is not None
                and isinstance(small.target, cst.Name)
            ):
                found.append((small.target.value, small.value))
    return found
