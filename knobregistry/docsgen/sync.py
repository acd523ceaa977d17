"""Keep a doc's generated blocks in sync with its registry: refresh them, or find them.

A doc belongs to the registry its `knobs:registry` marker names (relative to the
doc), or else to the registry found from the doc's folder as every command finds
one. `knobs check` checks the docs under the registry's folder that belong to it
(knobregistry.check.rules.docs_in_sync: KNB204, KNB205).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from fnmatch import fnmatchcase
from pathlib import Path

from knobregistry._text.paths import shown
from knobregistry.docsgen.markers import Block, MarkerProblem, Parsed, has_markers, parse
from knobregistry.docsgen.render import (
    CodeTable,
    blocks_text,
    default_blocks,
    render_block,
    render_page,
)
from knobregistry.registry import Registry, RegistryError, find_registry

# Folders never searched for docs: hidden ones, environments, caches, build output.
SKIPPED_DIRS = (".*", "__pycache__", "node_modules", "venv", "*.egg-info", "site", "build", "dist")


@dataclass(frozen=True, slots=True, kw_only=True)
class Refreshed:
    """A doc's text with its blocks regenerated, and what was found on the way."""

    text: str
    blocks: int  # blocks rendered
    stale: tuple[tuple[str, int], ...]  # (block name, 1-based line of its first difference)
    problems: tuple[MarkerProblem, ...]
    appended: bool  # the doc had no block, so every block was appended


def registry_ref(registry: Registry, doc: Path) -> str:
    """The registry's path relative to the doc's folder, as its marker names it."""
    return shown(registry.path, doc.absolute().parent)


def refresh(
    text: str, registry: Registry, ref: str | None = None, *, codes: CodeTable | None = None
) -> Refreshed:
    """``text`` with every block rendered anew; ``ref`` also writes the registry marker.

    ``codes`` renders `codes:PREFIX` blocks (knobregistry.check.rule_table.render_codes);
    without it they are left as they are, and not counted.
    """
    parsed = parse(text)
    problems = [*parsed.problems, *_unknown_profiles(parsed, registry)]
    usable = [
        b
        for b in parsed.blocks
        if (b.profile is None or b.profile in registry.profiles)
        and (codes is not None or not b.name.startswith("codes:"))
    ]
    if not parsed.blocks and not parsed.problems:
        return _appended(text, parsed, registry, ref, tuple(problems))
    lines, endings = list(parsed.lines), list(parsed.endings)
    stale: list[tuple[str, int]] = []
    for block in reversed(usable):
        expected = ["", *render_block(registry, block.name, codes), ""]
        current = lines[block.begin + 1 : block.end]
        ending = endings[block.begin]  # the generated lines end as the marker's line does
        if current != expected or set(endings[block.begin + 1 : block.end]) - {ending}:
            stale.append((block.name, _first_difference(block, current, expected)))
            lines[block.begin + 1 : block.end] = expected
            endings[block.begin + 1 : block.end] = [ending] * len(expected)
    if ref is not None:
        _set_registry_marker(lines, endings, parsed, ref)
    new = parsed.text(lines, endings)
    return Refreshed(
        text=new,
        blocks=len(usable),
        stale=tuple(reversed(stale)),
        problems=tuple(problems),
        appended=False,
    )


def _appended(
    text: str,
    parsed: Parsed,
    registry: Registry,
    ref: str | None,
    problems: tuple[MarkerProblem, ...],
) -> Refreshed:
    """``text`` as it is, then every default block, each line ended as the doc's lines are
    (a page of its own when ``text`` is blank). A fence ``text`` leaves open would hide the
    blocks, so that is a problem instead."""
    name = registry.path.name
    if parsed.open_fence is not None:
        problems = (*problems, _open_fence(parsed.open_fence))
    if not text.strip():
        new = render_page(registry, ref, name)
    else:
        marker = [f"<!-- knobs:registry {ref} -->", ""] if ref is not None else []
        body = [*marker, *"\n".join(blocks_text(registry)).rstrip("\n").split("\n")]
        eol = parsed.eol
        ended = text if not parsed.endings or parsed.endings[-1] else text + eol
        new = ended + eol + "".join(line + eol for line in body)
    count = sum(1 for heading, _ in default_blocks(registry) if heading is not None)
    return Refreshed(text=new, blocks=count, stale=(), problems=problems, appended=True)


def _first_difference(block: Block, current: list[str], expected: list[str]) -> int:
    for index, (have, want) in enumerate(zip(current, expected, strict=False)):
        if have != want:
            return block.begin + 2 + index
    return block.begin + 2 + min(len(current), len(expected))


def _open_fence(line: int) -> MarkerProblem:
    return MarkerProblem(
        line + 1,
        "the fenced code opened on this line is never closed, so the blocks appended after "
        "it would be read as code; close the fence.",
    )


def _set_registry_marker(lines: list[str], endings: list[str], parsed: Parsed, ref: str) -> None:
    marker = f"<!-- knobs:registry {ref} -->"
    if parsed.registry_line is not None:
        lines[parsed.registry_line] = marker
    elif parsed.blocks:
        first = min(b.begin for b in parsed.blocks)
        lines[first:first] = [marker, ""]
        endings[first:first] = [endings[first]] * 2


def _unknown_profiles(parsed: Parsed, registry: Registry) -> Iterator[MarkerProblem]:
    for block in parsed.blocks:
        if block.profile is not None and block.profile not in registry.profiles:
            yield MarkerProblem(
                block.begin + 1,
                f"knobs:begin {block.name} names profile '{block.profile}', which "
                f"{registry.path.name} does not define.",
            )


def doc_registry(doc: Path, parsed: Parsed) -> Path | None:
    """The registry ``doc`` belongs to; None when its marker names no file, or none is found."""
    if parsed.registry is not None:
        named = doc.absolute().parent / parsed.registry
        return named if named.is_file() else None
    try:
        return find_registry(start=doc.absolute().parent)
    except RegistryError:
        return None


def find_docs(registry: Registry) -> tuple[Path, ...]:
    """The Markdown files under the registry's folder with blocks that belong to it, sorted.

    A doc whose registry marker names a missing file is included, so that it is reported.
    """
    found: list[Path] = []
    for dirpath, dirnames, filenames in os.walk(registry.root):
        dirnames[:] = sorted(
            d for d in dirnames if not any(fnmatchcase(d, p) for p in SKIPPED_DIRS)
        )
        found.extend(Path(dirpath) / name for name in sorted(filenames) if name.endswith(".md"))
    return tuple(doc for doc in found if _belongs(doc, registry))


def _belongs(doc: Path, registry: Registry) -> bool:
    text = read_doc(doc)
    if not has_markers(text):
        return False
    parsed = parse(text)
    if not (parsed.blocks or parsed.problems or parsed.registry):
        return False
    owner = doc_registry(doc, parsed)
    if owner is None:
        return parsed.registry is not None
    return owner.resolve() == registry.path.resolve()


def read_doc(path: Path) -> str:
    """The text of a doc; "" when it cannot be read as UTF-8."""
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return ""
