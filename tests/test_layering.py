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
