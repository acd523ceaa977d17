"""The layers: nothing in scanner/ imports knobregistry; the scanner's layers import only
downward; knobregistry's parts import only what KNOBREGISTRY_IMPORTS allows."""

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
    "scanner.settings": 0,  # the one Settings of a scan, its cache key from its fields
    "scanner.languages": 0,  # the Language enum (the reader registry is scanner.run.readers)
    "scanner.determinism": 0,  # the catalogue of the stack's determinism settings
    "scanner.roles": 0,  # what a knob controls, from its verdict, writes, words and code
    "scanner.suite_files": 0,  # which files are tests
    "scanner.source": 1,  # reading files and narrowing them (ast only)
    "scanner.syntax": 2,  # the libcst tree: walking it, symbols, reads, events
    "scanner.interpret": 3,  # the interpreter that judges a gate
    "scanner.launcher": 3,  # shell scripts and YAML configs: the launcher layers
    "scanner.reach": 3,  # what a gate's branches reach (ast): the code evidence of a role
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


# knobregistry's parts (its top-level modules and subpackages), and the parts each may
# import. Leaves first; the CLI (commands) on top. `check` runs families of checks and
# imports none of them; `families` composes them. "scanner" is the scanner package.
KNOBREGISTRY_IMPORTS: dict[str, set[str]] = {
    # leaves: conventions, small helpers, the data model
    "__init__": set(),
    "plural": set(),
    "printable": set(),
    "schema_words": set(),
    # the shipped determinism settings of the stack (package data)
    "catalogue": {"plural", "validated"},
    "suggest": set(),
    "progress": set(),
    "files": set(),
    "procfs": set(),
    "surrogates": set(),
    "digits": set(),  # how long a number knobs reads may be
    "jsontext": {"digits", "surrogates"},
    "pytest_ini": set(),
    "paths": {"scanner"},
    "feature": {"scanner"},
    "cache": set(),
    # documents already found valid against a schema, by hash (skips importing jsonschema)
    "validated": {"cache"},
    "atomic": {"files", "procfs"},
    "checksum_format": set(),  # the checksum records' format: the recorder's and triage's
    # the runtime a training script imports (torch, an optional dependency); no CLI part
    # imports it
    "torch": {"atomic", "checksum_format", "digits"},
    "lock": {"files", "printable", "procfs"},  # one writer of a registry at a time
    "stdout": {"files"},
    "width": set(),  # how wide a command's output may be: the terminal's, COLUMNS, or 100
    "columns": set(),  # tables laid out to a width, names never broken
    "diagnostics": set(),
    "codes": {"diagnostics"},
    "pyproject": {"scanner", "digits"},
    "registry": {"scanner", "digits", "files", "pyproject", "schema_words", "surrogates"}
    | {"validated"},
    "yaml_format": {"scanner", "feature", "surrogates"},
    # how each site reads a knob whose sites disagree (`sites:`): init writes it, check holds it
    "site_reads": {"scanner", "feature", "yaml_format"},
    # profiles and what renders them
    # the types of the trainers' config keys, read from megatron-core's and torchtitan's
    # source (and the megatron config classes profiles import fields from)
    # what is read from an installed trainer, kept in the user's cache folder
    "fields_cache": {"atomic", "cache", "jsontext", "progress"},
    "trainer_types": {"scanner", "cache", "fields_cache"},
    "profiles": {
        "catalogue",
        *("scanner", "atomic", "cache", "codes", "diagnostics", "feature", "progress"),
        *("fields_cache", "jsontext", "registry", "suggest", "trainer_types"),
    },
    "export": {"scanner", "catalogue", "plural", "printable", "profiles", "registry"}
    | {"surrogates"},
    # the one scan of a registry's scope (or a command line's paths): settings, cache, progress
    "scan_for": {"scanner", "cache", "paths", "progress", "pyproject", "registry", "trainer_types"},
    # the check engine and its inventory family
    "check": {
        *("scanner", "cache", "codes", "diagnostics", "feature", "paths", "plural"),
        *("progress", "pyproject", "registry", "scan_for", "site_reads", "trainer_types"),
        "yaml_format",
    },
    # the other families of checks, each importing check, never the reverse
    "profile_checks": {"scanner", "check", "codes", "diagnostics", "feature", "profiles"}
    | {"catalogue", "registry", "stack_checks"},
    "waivers": {"check", "codes", "diagnostics", "paths", "registry"},
    "baseline": {"atomic", "check", "codes", "diagnostics", "files", "jsontext", "paths"}
    | {"plural"},
    "docsgen": {
        *("scanner", "atomic", "check", "codes", "diagnostics", "export", "files"),
        *("paths", "plural", "printable", "profiles", "registry"),
    },
    # what a triage was measured on: the code each knob gates (scanner.gated), recorded
    "fingerprints": {"scanner", "registry", "scan_for"},
    "stale_triage": {
        *("scanner", "check", "codes", "diagnostics", "feature", "fingerprints", "plural"),
        *("profiles", "registry"),
    },
    "families": {"baseline", "check", "codes", "diagnostics", "docsgen", "paths", "registry"}
    | {"profile_checks", "stale_triage", "waivers"},
    # the other use cases
    "stack_use": {"catalogue"},
    "stack_checks": {"scanner", "catalogue", "check", "codes", "diagnostics", "profiles"}
    | {"registry", "stack_use"},
    "init": {"scanner", "catalogue", "files", "paths", "plural", "pyproject", "registry"}
    | {"site_reads", "yaml_format"},
    "explain": {"scanner", "check", "paths", "profiles", "registry", "scan_for", "suggest"}
    | {"yaml_format"},
    "diff": {
        "columns",
        *("scanner", "check", "docsgen", "feature", "fingerprints", "paths", "plural"),
        "printable",
        *("pyproject", "registry", "scan_for", "yaml_format"),
    },
    "trace": {
        *("catalogue", "columns"),
        *("scanner", "files", "jsontext", "paths", "plural", "printable", "procfs"),
        *("profiles", "pyproject", "registry"),
    },
    # triage seals its journals with a key kept in the user's cache folder (triage/seal.py)
    "triage": {
        *("atomic", "cache", "checksum_format", "files", "jsontext", "lock", "plural"),
        *("printable", "procfs", "profiles", "registry", "schema_words", "suggest"),
    },
    # reporters, the test API, the pytest plugin
    "report": {
        "columns",
        *("scanner", "__init__", "check", "codes", "diagnostics", "explain", "feature"),
        *("jsontext", "plural", "printable", "registry", "yaml_format"),
    },
    "testing": {"baseline", "check", "families", "registry", "report"},
    "pytest_plugin": {"baseline", "diagnostics", "families", "registry", "report", "testing"}
    | {"files", "jsontext", "paths", "printable", "trace"},
    # the CLI on top (cli names its commands as strings, imported when they run)
    "commands": {
        *("catalogue", "stack_use"),
        *("scanner", "atomic", "baseline", "cache", "check", "codes", "diagnostics", "diff"),
        *("docsgen", "explain", "export", "families", "feature", "files", "fingerprints"),
        *("init", "lock"),
        "paths",
        *("plural", "printable", "profiles", "progress", "pyproject", "registry", "report"),
        *("scan_for", "site_reads", "stdout", "suggest", "trace", "trainer_types", "triage"),
        "width",
    },
    "cli": {"__init__", "suggest"},
    "__main__": {"cli"},
}


def part_of(module: str) -> str | None:
    """The part of knobregistry a module belongs to; "scanner" for the scanner; None else."""
    bits = module.split(".")
    if bits[0] == "scanner":
        return "scanner"
    if bits[0] != "knobregistry":
        return None
    return bits[1] if len(bits) > 1 else "__init__"


def knobregistry_imports() -> dict[str, set[str]]:
    """Each part of knobregistry, and the other parts its modules import (``from
    knobregistry import X`` counts as importing X when X is a part)."""
    found: dict[str, set[str]] = {}
    for path in sorted((REPO / "knobregistry").rglob("*.py")):
        own = part_of(module_of(path))
        assert own is not None
        targets = found.setdefault(own, set())
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module]
                if node.module == "knobregistry":
                    names = [f"knobregistry.{alias.name}" for alias in node.names]
            for name in names:
                part = part_of(name)
                if part == "__init__" or (
                    part is not None and part != "scanner" and part not in KNOBREGISTRY_IMPORTS
                ):
                    part = "__init__"  # `from knobregistry import __version__`
                if part is not None and part != own:
                    targets.add(part)
    return found


def test_knobregistry_parts_import_only_what_the_table_allows() -> None:
    actual = knobregistry_imports()
    assert set(actual) == set(KNOBREGISTRY_IMPORTS)  # a new part gets a row
    beyond = {
        part: sorted(targets - KNOBREGISTRY_IMPORTS[part])
        for part, targets in actual.items()
        if targets - KNOBREGISTRY_IMPORTS[part]
    }
    assert beyond == {}


def test_the_table_has_no_cycle_and_check_imports_no_family() -> None:
    order: list[str] = []
    visiting: set[str] = set()

    def visit(part: str) -> None:
        if part in order or part == "scanner":
            return
        assert part not in visiting, f"a cycle through {part}"
        visiting.add(part)
        for target in sorted(KNOBREGISTRY_IMPORTS[part]):
            visit(target)
        visiting.discard(part)
        order.append(part)

    for part in sorted(KNOBREGISTRY_IMPORTS):
        visit(part)
    clients = {"profile_checks", "waivers", "baseline", "docsgen", "families", "profiles"}
    assert not KNOBREGISTRY_IMPORTS["check"] & (clients | {"export", "commands", "report"})
    users_of_commands = {p for p, targets in KNOBREGISTRY_IMPORTS.items() if "commands" in targets}
    assert users_of_commands == set()


def test_the_table_check_would_catch_an_upward_import(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("from knobregistry.families import CHECKS\nimport knobregistry.waivers\n")
    parts = {part_of(m) for m in imported_modules(bad)}
    assert parts == {"families", "waivers"}
    assert not parts <= KNOBREGISTRY_IMPORTS["check"]
