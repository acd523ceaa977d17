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
    "scanner.languages": 0,  # the table of languages (scanner.run.readers imports each reader)
    "scanner.determinism": 0,  # the stack's determinism settings the scanner knows by name
    "scanner.stack_settings": 0,  # their table, generated from the catalogue's data
    "scanner.host_registries": 0,  # host frameworks' registries, copied with their sources
    "scanner.roles": 0,  # what a knob controls, from its verdict, writes, words and code
    "scanner.split_off": 0,  # a switch whose sites split on its off value, tied by its branches
    "scanner.suite_files": 0,  # which files are tests
    "scanner.source": 1,  # reading files and narrowing them (ast only)
    "scanner.syntax": 2,  # the libcst tree: walking it, symbols, reads, events
    "scanner.interpret": 3,  # the interpreter that judges a gate
    "scanner.launcher": 3,  # shell scripts and YAML configs: the launcher layers
    "scanner.reach": 3,  # what a gate's branches reach (ast): the code evidence of a role
    "scanner.run": 4,  # running files, pooling and caching them, the scan itself
    "scanner": 5,  # the public API
}


def layer_in(layers: dict[str, int], module: str, table: str) -> int:
    """The layer of ``module`` in ``layers`` (by its longest listed prefix)."""
    parts = module.split(".")
    for end in range(len(parts), 0, -1):
        found = layers.get(".".join(parts[:end]))
        if found is not None:
            return found
    raise AssertionError(f"{module} is in no layer of {table}")


def scanner_layer(module: str) -> int:
    """The layer of a scanner module (by its longest listed prefix)."""
    return layer_in(SCANNER_LAYERS, module, "SCANNER_LAYERS")


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


# knobregistry's rooms (its subpackages and the few modules at its top level), each in a
# layer: a room imports rooms of its own layer or below, and the rooms' imports form no
# cycle. "scanner" is the scanner package, below every room.
ROOMS: dict[str, int] = {
    "__init__": 0,  # the version
    "_text": 0,  # text for people: counts, widths, tables, safe printing, paths as shown
    "_io": 1,  # files and processes: atomic writes, bounded reads, locks, JSON, the cache
    "registry": 2,  # the registry: its document, model, schema, the feature a knob gates
    "catalogue": 2,  # the shipped determinism settings of the stack (package data)
    # the runtime a training script imports (torch, an optional dependency)
    "torch": 2,
    "project": 3,  # the project a command runs on: its scan, trainer types, stack, fingerprints
    "profiles": 4,  # profiles resolved into values
    "export": 4,  # the recipe written in each format
    "docsgen": 4,  # the docs' generated sections (check renders its table of codes into them)
    "check": 5,  # every rule of `knobs check`, the engine that runs them, their families
    # the other use cases, each beside its command
    "init": 6,
    "explain": 6,
    "diff": 6,
    "trace": 6,
    "triage": 6,
    "report": 7,  # every renderer of a command's output, one module per output
    "docsite": 7,  # the docs site's pages rendered from the rules, modes and languages
    "testing": 8,  # `knobs check` as an assertion (public)
    "pytest": 9,  # the pytest plugin and its ini keys
    "commands": 10,  # the CLI's commands
    "cli": 11,  # the `knobs` entry point (it names its commands as strings)
    "__main__": 12,
}
# Cycles still to be broken between rooms of one layer.
KNOWN_CYCLES: set[frozenset[str]] = set()


def room_of(module: str) -> str | None:
    """The room of knobregistry a module belongs to; "scanner" for the scanner; None else."""
    bits = module.split(".")
    if bits[0] == "scanner":
        return "scanner"
    if bits[0] != "knobregistry":
        return None
    return bits[1] if len(bits) > 1 else "__init__"


def room_imports() -> dict[str, set[str]]:
    """Each room of knobregistry, and the other rooms its modules import (``from
    knobregistry import X`` counts as importing X when X is a room)."""
    found: dict[str, set[str]] = {}
    for path in sorted((REPO / "knobregistry").rglob("*.py")):
        own = room_of(module_of(path))
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
                room = room_of(name)
                if room is not None and room != "scanner" and room not in ROOMS:
                    room = "__init__"  # `from knobregistry import __version__`
                if room is not None and room != own:
                    targets.add(room)
    return found


def upward(imports: dict[str, set[str]]) -> dict[str, list[str]]:
    """The imports of a room above its own layer."""
    above = {
        room: sorted(t for t in targets if t != "scanner" and ROOMS[t] > ROOMS[room])
        for room, targets in imports.items()
    }
    return {room: targets for room, targets in above.items() if targets}


def cycles(imports: dict[str, set[str]]) -> set[frozenset[str]]:
    """The pairs of rooms that reach each other through imports."""
    reach = {room: set(targets) - {"scanner"} for room, targets in imports.items()}
    changed = True
    while changed:
        changed = False
        for targets in reach.values():
            more = set().union(*(reach.get(t, set()) for t in targets)) - targets
            if more:
                targets |= more
                changed = True
    return {frozenset({a, b}) for a in reach for b in reach[a] if a != b and a in reach.get(b, ())}


def test_every_room_has_a_layer_and_the_top_level_keeps_five_modules_at_most() -> None:
    rooms = {room_of(module_of(p)) for p in (REPO / "knobregistry").rglob("*.py")}
    assert rooms == set(ROOMS)  # a new room gets a row
    top = sorted(p.name for p in (REPO / "knobregistry").glob("*.py"))
    assert top == ["__init__.py", "__main__.py", "cli.py", "testing.py"]


def test_rooms_import_only_their_own_layer_and_below() -> None:
    assert upward(room_imports()) == {}


def test_rooms_import_each_other_in_no_cycle() -> None:
    assert cycles(room_imports()) == KNOWN_CYCLES


def test_nothing_imports_the_commands_and_check_imports_no_use_case() -> None:
    imports = room_imports()
    assert {room for room, targets in imports.items() if "commands" in targets} == set()
    assert not imports["check"] & {"export", "commands", "report", "init", "triage", "diff"}


def test_the_room_check_would_catch_an_upward_import_and_a_cycle(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text(
        "from knobregistry.report.check_text import render\nimport knobregistry.commands\n"
    )
    rooms = {room for m in imported_modules(bad) if (room := room_of(m)) is not None}
    assert rooms == {"report", "commands"}
    assert upward({"check": rooms}) == {"check": ["commands", "report"]}
    assert cycles({"check": {"report"}, "report": {"check"}}) == {frozenset({"check", "report"})}


# knobregistry.check's own layers, bottom first, as SCANNER_LAYERS: a module imports its own
# layer and those below (an import under `if TYPE_CHECKING:` names a type and loads nothing).
CHECK_LAYERS = {
    "knobregistry.check": 0,  # the package (it imports nothing)
    # the engine a rule uses: findings and rules, a family's check, places, the examples
    "knobregistry.check.diagnostics": 0,
    "knobregistry.check.family_check": 0,
    "knobregistry.check.where": 0,
    "knobregistry.check.profile_where": 0,
    "knobregistry.check.backend_keys": 0,
    "knobregistry.check.baseline": 0,  # the baseline file's format
    "knobregistry.check.examples": 0,
    "knobregistry.check.rules": 1,  # one module per rule: its declaration beside its check
    "knobregistry.check.codes": 2,  # the index of the rules
    "knobregistry.check.rule_table": 2,  # the index as the docs' tables show it
    # the families: the checks that run the rules on one scan, and their composition
    "knobregistry.check.reconcile": 3,
    "knobregistry.check.inventory": 3,
    "knobregistry.check.profile_checks": 3,
    "knobregistry.check.run": 3,
    "knobregistry.check.all_checks": 3,
    "knobregistry.check.use_case": 4,  # `knobs check`: the families, then the baseline
    "knobregistry.check.scaffold": 4,  # writes a new rule's module and test
}


def check_layer(module: str) -> int:
    """The layer of a module of knobregistry.check (by its longest listed prefix)."""
    if not module.startswith("knobregistry.check"):
        raise AssertionError(f"{module} is in no layer of CHECK_LAYERS")
    return layer_in(CHECK_LAYERS, module, "CHECK_LAYERS")


def runtime_imports(path: Path) -> set[str]:
    """The modules ``path`` imports when it runs (``from P import M`` counts as P.M when
    P.M is a module), leaving out the imports under ``if TYPE_CHECKING:``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    typing_only = {
        id(inner)
        for node in ast.walk(tree)
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING"
        for stmt in node.body
        for inner in ast.walk(stmt)
    }
    found: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            for alias in node.names:
                dotted = f"{node.module}.{alias.name}"
                parts = dotted.split(".")
                if (REPO.joinpath(*parts).is_dir()) or REPO.joinpath(
                    *parts[:-1], parts[-1] + ".py"
                ).is_file():
                    found.add(dotted)
    return found


def test_check_layers_import_only_downward() -> None:
    files = sorted((REPO / "knobregistry" / "check").rglob("*.py"))
    upward = {}
    for path in files:
        module = module_of(path)
        own = check_layer(module)
        above = sorted(
            m
            for m in runtime_imports(path)
            if m.startswith("knobregistry.check") and m != module and check_layer(m) > own
        )
        if above:
            upward[module] = above
    assert upward == {}
    assert {module_of(p) for p in files} >= {"knobregistry.check.rules.waivers"}


def test_the_check_layers_would_catch_a_rule_that_imports_the_index(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text(
        "from typing import TYPE_CHECKING\n\nfrom knobregistry.check.codes import rule\n"
        "if TYPE_CHECKING:\n    from knobregistry.check.run import CheckResult\n"
    )
    assert runtime_imports(bad) == {"typing", "knobregistry.check.codes"}
    assert check_layer("knobregistry.check.codes") > check_layer("knobregistry.check.rules.waivers")
