"""The launch-source section of the accuracy benchmark (issue 25): the reads and writes the
scanner finds in Slurm files, ``#SBATCH`` directives, Dockerfiles, CI workflows and YAML
``ENV_VARS:`` blocks, against a truth worked out without it.

``launch_sources.yaml`` lists, file by file, every read and write of the layers it covers
(read by hand). The ``env-block`` layer's truth is every entry of a top-level
``ENV_VARS:`` mapping of every YAML file of the tree, read with PyYAML's ``BaseLoader``
(which keeps each scalar as written) and placed by the line its key is written on. Per
package and layer the section prints recall (truth entries found at their line),
precision (of what the scan reports in the covered files for that layer) and value
accuracy (of the entries found, those whose value written or default read is right),
then every miss, extra and wrong value.
"""

from __future__ import annotations

import os
import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

import yaml
from accuracy_sources import BenchError, shown

from scanner import ScanResult

LAYERS = (
    "env-block",
    "shebang-shell",
    "sbatch",
    "dockerfile-env",
    "dockerfile-arg",
    "ci-env",
    "ci-script",
    "ci-value",
    "github-env",
)
ACTIONS = ("read", "write")
EVERY_FILE = "*"  # a covered path: the layer's truth holds every file of the tree
ENV_BLOCK = "ENV_VARS"
_SCRIPTS = (".sh", ".bash")
_IN_SCRIPT = re.compile(r"\.(?:run|script)(?::|$)")  # a site's function inside a CI script


@dataclass(frozen=True, order=True)
class Entry:
    """One read or write: where, what, and its value (written) or default (read)."""

    package: str
    layer: str
    path: str
    line: int
    name: str
    action: str
    value: str | None

    @property
    def key(self) -> tuple[str, str, str, int, str, str]:
        return (self.package, self.layer, self.path, self.line, self.name, self.action)

    @property
    def where(self) -> str:
        return f"{self.path}:{self.line} {self.action} {self.name}"


@dataclass(frozen=True)
class Truth:
    entries: tuple[Entry, ...]
    covered: frozenset[tuple[str, str, str]]  # (package, path or EVERY_FILE, layer)


def load(path: Path) -> Truth:
    """The hand-verified entries of ``path``; every malformed one is reported at once."""
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as error:
        raise BenchError(f"cannot read {shown(path)}: {error}") from error
    files = data.get("files") if isinstance(data, dict) else None
    if not isinstance(files, list):
        raise BenchError(f"{shown(path)}: expected a top-level 'files:' list")
    problems: list[str] = []
    entries: list[Entry] = []
    covered: set[tuple[str, str, str]] = set()
    for index, item in enumerate(files):
        where = f"{shown(path)}: files[{index}]"
        if not isinstance(item, dict) or not isinstance(item.get("layers"), dict):
            problems.append(f"{where}: needs package, path and layers")
            continue
        package, rel = str(item.get("package")), str(item.get("path"))
        for layer, found in item["layers"].items():
            if layer not in LAYERS or layer == "env-block":
                problems.append(f"{where}: unknown layer {layer!r} (one of {', '.join(LAYERS)})")
                continue
            covered.add((package, rel, layer))
            for action, rows in (found or {}).items():
                for row in rows if action in ACTIONS and isinstance(rows, list) else [None]:
                    if not (isinstance(row, list) and len(row) == 3 and isinstance(row[0], int)):
                        problems.append(f"{where}: {layer}.{action}: expected [line, name, value]")
                        continue
                    value = None if row[2] is None else str(row[2])
                    entries.append(Entry(package, layer, rel, row[0], str(row[1]), action, value))
    if problems:
        raise BenchError("\n".join(problems))
    return Truth(tuple(sorted(entries)), frozenset(covered))


def env_block_truth(package: str, tree: Path) -> Truth:
    """Every entry of a top-level ``ENV_VARS:`` mapping in the tree's YAML files."""
    entries: list[Entry] = []
    for rel in _yaml_files(tree):
        text = (tree / rel).read_text(encoding="utf-8", errors="replace")
        if f"{ENV_BLOCK}:" not in text:
            continue
        try:
            # BaseLoader builds only strings, lists and dicts: no object construction.
            data = yaml.load(text, Loader=yaml.BaseLoader)
        except yaml.YAMLError:
            continue
        block = data.get(ENV_BLOCK) if isinstance(data, dict) else None
        if not isinstance(block, dict):
            continue
        lines = text.split("\n")
        start = next(i for i, line in enumerate(lines) if line.startswith(f"{ENV_BLOCK}:"))
        for name, value in block.items():
            pattern = re.compile(rf"\s+{re.escape(name)}\s*:")
            line = next((i + 1 for i in range(start + 1, len(lines)) if pattern.match(lines[i])), 0)
            written = value if isinstance(value, str) and value not in ("", "~", "null") else None
            if written is not None and "${" in written:
                written = None
            entries.append(Entry(package, "env-block", rel, line, name, "write", written))
    return Truth(tuple(sorted(entries)), frozenset({(package, EVERY_FILE, "env-block")}))


def _yaml_files(tree: Path) -> Iterable[str]:
    for folder, dirs, files in os.walk(tree):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(files):
            if name.endswith((".yaml", ".yml")):
                yield Path(folder, name).relative_to(tree).as_posix()


def layer_of(language: str, kind: str, function: str, path: str, read: bool) -> str | None:
    """The layer of a scanner finding, by its language, kind and place; None: none here."""
    if language == "yaml":
        return "env-block" if kind == "block" and not read else None
    if language == "dockerfile":
        return "dockerfile-arg" if read else "dockerfile-env"
    if language == "ci":
        if not read and kind == "block":
            return "ci-env"
        if not read and kind == "printed":
            return "github-env"
        return "ci-script" if _IN_SCRIPT.search(function) else "ci-value"
    if language == "shell" and not path.endswith(_SCRIPTS):
        return "sbatch" if function == "<sbatch>" else "shebang-shell"
    return None


def findings(package: str, result: ScanResult) -> list[Entry]:
    """The scan's reads and writes, each in its layer."""
    found: list[Entry] = []
    for knob in result.knobs:
        for site in knob.sites:
            layer = layer_of(site.language, site.kind.value, site.function, site.path, True)
            if layer is not None:
                # A default is graded as written, computed ones too (${HOME}/out); a write's
                # value only where it is known (a computed one is None in the truth).
                written = site.default if site.default is not None else site.default_computed
                found.append(
                    Entry(package, layer, site.path, site.line, site.name, "read", written)
                )
    for write in result.writes:
        layer = layer_of(write.language, write.kind.value, write.function, write.path, False)
        if layer is not None and write.name is not None:
            found.append(
                Entry(package, layer, write.path, write.line, write.name, "write", write.value)
            )
    return found


def _covers(truth: Truth, entry: Entry) -> bool:
    return (entry.package, entry.path, entry.layer) in truth.covered or (
        entry.package,
        EVERY_FILE,
        entry.layer,
    ) in truth.covered


def _percent(part: int, whole: int) -> str:
    return f"{100 * part / whole:5.1f}%" if whole else "    -"


def report(path: Path, results: Mapping[str, ScanResult], trees: Mapping[str, Path]) -> list[str]:
    """The section: per package and layer its counts and rates, then what differs."""
    if not path.is_file():
        return [f"launch sources: {shown(path)} not found"]
    listed = load(path)
    lines = [
        f"launch sources: {shown(path)} and the ENV_VARS: blocks of each tree",
        f"  {'package':<12} {'layer':<15}{'truth':>6}{'found':>7}{'recall':>8}"
        f"{'precision':>10}{'values':>8}",
    ]
    details: list[str] = []
    packages = sorted({e.package for e in listed.entries} | {p for p, _, _ in listed.covered})
    for package in packages:
        if package not in results:
            lines.append(f"  {package}: skipped (pass --{package} PATH)")
            continue
        tree = trees[package]
        blocks = env_block_truth(package, tree)
        truth = Truth(
            tuple(e for e in listed.entries if e.package == package) + blocks.entries,
            frozenset({c for c in listed.covered if c[0] == package} | blocks.covered),
        )
        absent = sorted({rel for p, rel, _ in truth.covered if rel != EVERY_FILE} - _present(tree))
        for rel in absent:
            details.append(f"  {package}: {rel} is not in the tree given: its entries are missed")
        found = [e for e in findings(package, results[package]) if _covers(truth, e)]
        for layer in LAYERS:
            expected = [e for e in truth.entries if e.layer == layer]
            reported = [e for e in found if e.layer == layer]
            if not expected and not reported and not any(c[2] == layer for c in truth.covered):
                continue
            lines.append(_row(package, layer, expected, reported, details))
    return lines + details


def _present(tree: Path) -> set[str]:
    return {
        Path(folder, name).relative_to(tree).as_posix()
        for folder, _, files in os.walk(tree)
        for name in files
    }


def _row(
    package: str, layer: str, expected: list[Entry], reported: list[Entry], details: list[str]
) -> str:
    wanted = Counter(e.key for e in expected)
    got = Counter(e.key for e in reported)
    matched = wanted & got
    hits = sum(matched.values())
    values = {e.key: e.value for e in expected}
    right = 0
    for entry in reported:
        if entry.key in matched:
            if entry.value == values[entry.key]:
                right += 1
            else:
                expected_value = values[entry.key]
                details.append(
                    f"  wrong value: {package} {entry.where}: expected {expected_value!r}, "
                    f"found {entry.value!r}"
                )
    for key in sorted((wanted - got).elements()):
        details.append(f"  missed: {package} {key[2]}:{key[3]} {key[5]} {key[4]} ({layer})")
    for key in sorted((got - wanted).elements()):
        details.append(f"  extra: {package} {key[2]}:{key[3]} {key[5]} {key[4]} ({layer})")
    right = min(right, hits)
    return (
        f"  {package:<12} {layer:<15}{len(expected):>6}{len(reported):>7}"
        f"{_percent(hits, len(expected)):>8}{_percent(hits, len(reported)):>10}"
        f"{_percent(right, hits):>8}"
    )
