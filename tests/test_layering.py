"""The scanner is the bottom layer: nothing in scanner/ imports knobregistry."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.conftest import REPO


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
    return found


def test_scanner_never_imports_knobregistry() -> None:
    files = sorted((REPO / "scanner").rglob("*.py"))
    assert len(files) > 5
    offenders = {
        str(f.relative_to(REPO)): sorted(
            m for m in imported_modules(f) if m.split(".")[0] == "knobregistry"
        )
        for f in files
    }
    assert {f: m for f, m in offenders.items() if m} == {}


def test_the_check_would_catch_an_offender(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("from knobregistry.cli import main\nimport knobregistry.report\n")
    assert imported_modules(bad) == {"knobregistry.cli", "knobregistry.report"}


# The scanner's layers, bottom first: a module may import its own layer and those below.
SCANNER_LAYERS = {
    "scanner.model": 0,
    "scanner.accessors": 0,
    "scanner.conventions": 0,
    "scanner.patterns": 0,
    "scanner.settings": 0,
    "scanner.source": 1,  # reading files and narrowing them (ast only)
    "scanner.syntax": 2,  # the libcst tree: walking it, symbols, reads, events
    "scanner.interpret": 3,  # the interpreter that judges a gate
    "scanner.launcher": 3,  # shell scripts and YAML configs: the launcher layers
    "scanner.run": 4,  # running files, pooling and caching them, the scan itself
    "scanner": 5,  # the public API
}


def scanner_layer(module: str) -> int:
    """The layer of a scanner module (by its longest listed prefix)."""
    parts = module.split(".")
    for end in range(len(parts), 0, -1):
        found = SCANNER_LAYERS.get(".".join(parts[:end]))
        if found is not None:
            return found
    raise AssertionError(f"{module} is in no layer of SCANNER_LAYERS")


def module_of(path: Path) -> str:
    rel = path.relative_to(REPO).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def test_scanner_layers_import_only_downward() -> None:
    files = sorted((REPO / "scanner").rglob("*.py"))
    upward = {}
    for path in files:
        module = module_of(path)
        own = scanner_layer(module)
        above = sorted(
            m for m in imported_modules(path) if m.startswith("scanner") and scanner_layer(m) > own
        )
        if above:
            upward[module] = above
    assert upward == {}
    assert {p.parent.name for p in files} >= {"source", "syntax", "interpret", "run"}


def test_the_layer_check_would_catch_an_upward_import(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("from scanner.run.work import process\nfrom scanner.model import Site\n")
    found = {m: scanner_layer(m) for m in imported_modules(bad)}
    assert found == {"scanner.run.work": 4, "scanner.model": 0}
    assert scanner_layer("scanner.syntax.events") < found["scanner.run.work"]
