"""Read the shipped catalogue: every data/*.yaml, loaded safely and checked against schema.json."""

from __future__ import annotations

import json
from collections.abc import Iterable
from functools import cache, partial
from pathlib import Path
from typing import Any

import yaml

from knobregistry._io.validated import problems_unless_known_valid
from knobregistry.catalogue.model import (
    Entry,
    Flag,
    Kind,
    Library,
    Platform,
    Reviewed,
    ScannerName,
)

# libyaml's safe loader where PyYAML was built with it: the same documents (a test holds
# every shipped file to it), in a tenth of the time of the pure-Python one.
SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class CatalogueError(Exception):
    """A catalogue file that is not valid: the installation is broken."""


@cache
def _schema_text() -> str:
    # beside this module (importlib.resources would import zipfile to say the same)
    return Path(__file__).with_name("schema.json").read_text("utf-8")


def schema() -> dict[str, Any]:
    """The JSON schema of one catalogue file."""
    loaded: dict[str, Any] = json.loads(_schema_text())
    return loaded


def problems(document: object) -> list[str]:
    """What is wrong with one loaded catalogue file, one line per problem (none: valid)."""
    from jsonschema import Draft202012Validator  # only for a file not known valid

    validator = Draft202012Validator(schema())
    return sorted(
        f"{'/'.join(str(p) for p in error.absolute_path) or '(top)'}: {error.message}"
        for error in validator.iter_errors(document)
    )


@cache
def _documents() -> tuple[dict[str, Any], ...]:
    """Every data/*.yaml, by file name, each checked against the schema."""
    found: list[dict[str, Any]] = []
    folder = Path(__file__).with_name("data")
    files = [f for f in folder.iterdir() if f.name.endswith(".yaml")]
    files.sort(key=lambda f: f.name)
    for file in files:
        document = yaml.load(file.read_text("utf-8"), Loader=SAFE_LOADER)
        wrong = problems_unless_known_valid(_schema_text(), document, partial(problems, document))
        if wrong:
            raise CatalogueError(f"catalogue file {file.name} is not valid: {'; '.join(wrong)}")
        found.append(document)
    return tuple(found)


@cache
def entries() -> tuple[Entry, ...]:
    """Every setting of every library, by file name then file order."""
    return tuple(entry for document in _documents() for entry in _entries(document))


@cache
def library_records() -> tuple[Library, ...]:
    """Every catalogued library with its prefixes, binaries and reviewed names, by file name."""
    return tuple(
        Library(
            name=document["library"],
            prefixes=tuple(document.get("prefixes", ())),
            binaries=tuple(document.get("binaries", ())),
            reviewed=tuple(
                Reviewed(
                    library=document["library"],
                    names=tuple(item["names"]),
                    why=item["why"],
                    source=item["source"],
                )
                for item in document.get("reviewed", ())
            ),
        )
        for document in _documents()
    )


def reviewed_names() -> frozenset[str]:
    """Every variable the catalogue has reviewed: its settings and its reviewed names."""
    named = {e.name for e in entries() if e.kind is Kind.VARIABLE}
    named.update(n for library in library_records() for r in library.reviewed for n in r.names)
    return frozenset(named)


def _flags(item: dict[str, Any]) -> tuple[Flag, ...]:
    return tuple(
        Flag(
            flag=flag["flag"],
            deterministic=flag["deterministic"],
            meaning=flag["meaning"],
            source=flag["source"],
            default=flag.get("default"),
        )
        for flag in item.get("flags", ())
    )


def _entries(document: dict[str, Any]) -> Iterable[Entry]:
    for item in document["settings"]:
        flags = _flags(item)
        yield Entry(
            library=document["library"],
            name=item["name"],
            kind=Kind(item["kind"]),
            platform=Platform(item["platform"]),
            meaning=item["meaning"],
            # absent: must stay unset, or the flags' values in order
            deterministic=" ".join(f.text for f in flags) if flags else item.get("deterministic"),
            cost=item["cost"],
            versions=item["versions"],
            source=item["source"],
            also=item.get("also"),
            default=item.get("default"),
            shared=item.get("shared", False),
            flags=flags,
            packages=tuple(document["packages"]),
            modules=tuple(
                document.get("modules") or (p.replace("-", "_") for p in document["packages"])
            ),
            read_by=tuple(item.get("read_by", ())),
            read_otherwise_by=tuple(item.get("read_otherwise_by", ())),
            where_read=item.get("where_read", False),
            scanner=ScannerName(**item["scanner"]) if "scanner" in item else None,
        )


def libraries() -> tuple[str, ...]:
    """The catalogued libraries, in catalogue order."""
    return tuple(dict.fromkeys(e.library for e in entries()))


def for_name(name: str) -> tuple[Entry, ...]:
    """The entries for a variable, call or attribute (a variable two libraries read, such as
    NCCL_ALGO, has one entry for each)."""
    return tuple(e for e in entries() if e.name == name)


def _normal(package: str) -> str:
    return package.lower().replace("_", "-").replace(".", "-")


def applicable(packages: Iterable[str], platform: Platform | None) -> tuple[Entry, ...]:
    """The entries for a project using ``packages`` on ``platform``; with no platform, only
    those that apply on any platform (platform-specific ones are left out, never guessed).
    An entry scoped to some of the library's modules (``read_by``) is among them: whether the
    project's code names them is ``knobregistry.project.stack_use``'s to read."""
    present = {_normal(p) for p in packages}
    out = []
    for entry in entries():
        if entry.packages and not present.intersection(_normal(p) for p in entry.packages):
            continue
        if entry.platform is Platform.ANY or entry.platform is platform:
            out.append(entry)
    return tuple(out)
