"""Checks the JSON Schema cannot express: references between entries, and a few rules.

These run on the parsed data whether or not it matched the schema, so each one
looks only at the parts that have the expected shape.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import PurePosixPath, PureWindowsPath
from typing import Any

from knobregistry.registry.document import Document
from knobregistry.registry.model import RegistryProblem, cut


def semantic_problems(doc: Document) -> list[RegistryProblem]:
    """Problems in references and rules, in no particular order."""
    data: dict[str, Any] = doc.data
    problems: list[RegistryProblem] = []
    problems.extend(_scan_paths(doc, data.get("scan")))
    knobs = _mapping(data.get("knobs"))
    external = _mapping(data.get("external"))
    problems.extend(_knob_rules(doc, knobs))
    for name in knobs:
        if name in external:
            problems.append(
                doc.problem(
                    ("external", name),
                    f"'{cut(name)}' is also registered under knobs; keep it in one place: under "
                    "knobs if the scanned code reads it, under external if only a library does.",
                )
            )
    for name, entry in external.items():
        if isinstance(entry, dict) and "deterministic" in entry and "must_stay_unset" in entry:
            problems.append(
                doc.problem(
                    ("external", name, "must_stay_unset"),
                    f"'{cut(name)}' has both `deterministic` and `must_stay_unset`; keep the one "
                    "the catalogue gives (`knobs catalogue` prints it).",
                )
            )
    problems.extend(_profile_references(doc, _mapping(data.get("profiles")), data))
    return problems


def _few(names: list[str], most: int = 10) -> str:
    """Up to ``most`` names, quoted, and how many more."""
    shown = ", ".join(f"'{cut(n)}'" for n in names[:most]) or "none"
    return shown + (f" and {len(names) - most} more" if len(names) > most else "")


def _mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _scan_paths(doc: Document, scan: Any) -> Iterator[RegistryProblem]:
    paths = scan.get("paths") if isinstance(scan, dict) else None
    if not isinstance(paths, list):
        return
    for index, path in enumerate(paths):
        if isinstance(path, str) and (
            PurePosixPath(path).is_absolute() or PureWindowsPath(path).is_absolute()
        ):
            yield doc.problem(
                ("scan", "paths", index),
                f"'{cut(path)}' is an absolute path; write it relative to the registry's folder, "
                "so the registry works in every checkout.",
            )


def _knob_rules(doc: Document, knobs: dict[str, Any]) -> Iterator[RegistryProblem]:
    for name, entry in knobs.items():
        if not isinstance(entry, dict):
            continue
        if "default" not in entry and "default_on" not in entry:
            yield doc.problem(
                ("knobs", name),
                "give the knob's `default` (the value the code falls back to when the variable "
                "is unset) or `default_on`, so that `knobs check` notices when the code changes.",
            )
        if "undecided" in entry and entry.get("default_on") is not None:
            yield doc.problem(
                ("knobs", name, "undecided"),
                "a knob whose gate is undecided has `default_on: null`; once you have read the "
                "code and written `default_on`, remove `undecided`.",
            )
        if "breaks" in entry and entry.get("triage") != "breaks-bitwise":
            yield doc.problem(
                ("knobs", name, "breaks"),
                "only a knob triaged 'breaks-bitwise' names the pass that breaks; remove "
                "`breaks` or change the triage.",
            )


def _profile_references(
    doc: Document, profiles: dict[str, Any], data: dict[str, Any]
) -> Iterator[RegistryProblem]:
    declared_config = _mapping(data.get("config"))
    parents: dict[str, str] = {}
    for name, profile in profiles.items():
        if not isinstance(profile, dict):
            continue
        parent = profile.get("extends")
        if isinstance(parent, str):
            if parent in profiles:
                parents[name] = parent
            else:
                known = _few(list(profiles))
                yield doc.problem(
                    ("profiles", name, "extends"),
                    f"no profile is named '{cut(parent)}'; the profiles are {known}.",
                )
        for key in _mapping(profile.get("config")):
            if key not in declared_config:
                yield doc.problem(
                    ("profiles", name, "config", key),
                    f"the config key '{cut(key)}' is not declared; add it under the top-level "
                    "`config` with its backend and description.",
                )
    yield from _cycles(doc, parents)


def _cycles(doc: Document, parents: dict[str, str]) -> Iterator[RegistryProblem]:
    reported: set[str] = set()
    for start in parents:
        chain = [start]
        while chain[-1] in parents and parents[chain[-1]] not in chain:
            chain.append(parents[chain[-1]])
        if chain[-1] not in parents:
            continue  # the chain ends at a profile that extends nothing
        first = chain.index(parents[chain[-1]])
        cycle = chain[first:]
        if reported.intersection(cycle):
            continue
        order = list(parents)
        lead = min(range(len(cycle)), key=lambda i: order.index(cycle[i]))
        cycle = cycle[lead:] + cycle[:lead]  # start at the member that comes first in the file
        reported.update(cycle)
        shown = " -> ".join(cut(p) for p in [*cycle, cycle[0]])
        yield doc.problem(
            ("profiles", cycle[0], "extends"),
            f"profiles extend each other in a cycle ({shown}); remove one of these `extends`.",
        )
