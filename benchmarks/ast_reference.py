"""The reference scan: the standard library's ``ast`` over the files that mention the words.

What a plain script does to list literal-name environment reads: read every
``.py`` file, skip those whose bytes lack ``environ``/``getenv``, parse the rest
with ``ast`` and walk them. ``scan_bench.py`` times it and checks that
``knobs scan`` finds the same literal-name reads.

    python benchmarks/ast_reference.py PATH  # prints one JSON object
"""

from __future__ import annotations

import ast
import json
import os
import re
import sys
from pathlib import Path

WORDS = re.compile(rb"\b(?:environ|getenv)\b")


def _environ_names(tree: ast.Module) -> tuple[set[str], set[str], set[str]]:
    """Local names for the os module, for os.environ and for os.getenv."""
    modules, environs, getenvs = {"os"}, set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            modules.update(a.asname for a in node.names if a.name == "os" and a.asname)
        elif isinstance(node, ast.ImportFrom) and node.module == "os" and not node.level:
            for alias in node.names:
                if alias.name == "environ":
                    environs.add(alias.asname or "environ")
                elif alias.name == "getenv":
                    getenvs.add(alias.asname or "getenv")
    return modules, environs, getenvs


def _is(node: ast.expr, attr: str, modules: set[str], direct: set[str]) -> bool:
    if isinstance(node, ast.Name):
        return node.id in direct
    return (
        isinstance(node, ast.Attribute)
        and node.attr == attr
        and isinstance(node.value, ast.Name)
        and node.value.id in modules
    )


def reads(text: str) -> list[dict[str, object]]:
    """Every direct read in one file: position, and the name when it is a literal."""
    tree = ast.parse(text)
    modules, environs, getenvs = _environ_names(tree)
    lines = text.splitlines()
    found: list[dict[str, object]] = []

    def add(node: ast.expr, name: ast.expr | None) -> None:
        line = lines[node.lineno - 1] if node.lineno <= len(lines) else ""
        column = len(line.encode()[: node.col_offset].decode(errors="replace")) + 1
        literal = name.value if isinstance(name, ast.Constant) else None
        found.append(
            {
                "line": node.lineno,
                "column": column,
                "name": literal if isinstance(literal, str) else None,
            }
        )

    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and node.args:
            func = node.func
            if isinstance(func, ast.Attribute) and func.attr == "get":
                if _is(func.value, "environ", modules, environs):
                    add(node, node.args[0])
            elif _is(func, "getenv", modules, getenvs):
                add(node, node.args[0])
        elif isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load):
            if _is(node.value, "environ", modules, environs):
                add(node, node.slice)
        elif (
            isinstance(node, ast.Compare)
            and len(node.ops) == 1
            and isinstance(node.ops[0], ast.In | ast.NotIn)
            and _is(node.comparators[0], "environ", modules, environs)
        ):
            add(node, node.left)
    return found


def main(root: str) -> int:
    result: dict[str, list[dict[str, object]]] = {}
    errors = 0
    base = Path(root)
    for dirpath, dirnames, filenames in os.walk(base):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d != "__pycache__")
        for name in sorted(filenames):
            if not name.endswith(".py"):
                continue
            path = Path(dirpath, name)
            data = path.read_bytes()
            if not WORDS.search(data):
                continue
            try:
                found = reads(data.decode("utf-8"))
            except (SyntaxError, UnicodeDecodeError, ValueError):
                errors += 1
                continue
            if found:
                result[path.relative_to(base).as_posix()] = found
    json.dump({"reads": result, "errors": errors}, sys.stdout, sort_keys=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
