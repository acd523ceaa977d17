"""After the registry changes (`knobs triage --record`), its generated docs follow it.

Generated blocks are derived text marked "do not edit": leaving them stale would only
make the next `knobs check` fail (KNB204) with a fix nobody needs to think about. So
every doc that belongs to the registry and whose markers parse is rewritten; a doc
whose markers are broken is left alone and named, with the command that refreshes it.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from knobregistry._io.atomic import write_atomic
from knobregistry._io.files import FileError
from knobregistry._text.paths import shown
from knobregistry._text.plural import counted
from knobregistry.docsgen.render import CodeTable
from knobregistry.docsgen.sync import find_docs, refresh, registry_ref
from knobregistry.registry import Registry


@dataclass(frozen=True, slots=True)
class DocFollowed:
    """What happened to one generated doc: a sentence for the user, and whether it failed."""

    message: str
    failed: bool = False


def follow_docs(
    registry: Registry, *, cwd: Path, codes: CodeTable | None = None
) -> Iterator[DocFollowed]:
    """Rewrite the stale generated blocks of every doc of ``registry``; one line each.
    ``codes`` renders `codes:PREFIX` blocks (see `refresh`)."""
    for doc in find_docs(registry):
        file = shown(doc, cwd)
        command = f"knobs docs --write {file}"
        try:
            text = doc.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            yield DocFollowed(f"{file} could not be read; run `{command}`.", failed=True)
            continue
        result = refresh(text, registry, registry_ref(registry, doc), codes=codes)
        if result.problems:
            yield DocFollowed(f"{file} has broken markers; fix them, then `{command}`.", True)
            continue
        if result.text == text:
            continue
        try:
            write_atomic(doc, result.text)
        except FileError as exc:
            reason = exc.message("write", file).rstrip(".")
            yield DocFollowed(f"{reason}; run `{command}`.", failed=True)
            continue
        blocks = counted(len(result.stale), "generated block")
        yield DocFollowed(f"Refreshed {blocks} of {file} from the recorded registry.")
