"""The code's evidence for each knob's role, kept beside the stored scan.

Following every gate to what it reaches reads far more of the tree than the scan does
(on torch, some 600 modules parsed). The evidence found for each knob is kept with what
its walks read (the modules parsed, the questions asked of the indexes that span the
tree), the status of every file then and a digest of each module's bytes; a later scan of
the same paths takes it back unless the knob's sites changed, a module its walks read
changed, or a changed module may now answer one of its questions. A change to one file
recomputes only the knobs whose walks read it. A module whose status changed but whose
bytes did not (a fresh checkout of the same commit, as in CI, or a copy of the tree
elsewhere) has not changed.
"""

from __future__ import annotations

import contextlib
import hashlib
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from scanner.model import Knob, Role
from scanner.reach.modules import MAX_MODULE_BYTES, Reads, Tree
from scanner.roles import CodeEvidence, Evidence
from scanner.run.cache import Cache, CacheError, entry_key
from scanner.run.memos import track
from scanner.run.snapshot import RACY_NS, Status
from scanner.settings import Settings
from scanner.source.files import SourceError, read_bytes

Python = Sequence[tuple[str, Path, str]]  # each Python file: relative path, path, module


def key(settings: Settings, given: Sequence[str]) -> str:
    """The key of the evidence kept for scans of ``given`` (paths as the scan shows them)
    with ``settings``: not the folder the tree lies in, so that a copy of the tree elsewhere
    (a CI runner's checkout) finds it; ``load`` and ``save`` add the tree's modules."""
    return entry_key(
        b"role-evidence", settings.key(), repr((settings.include, settings.exclude)), *given
    )


def _entry(scans: str, python: Python) -> str:
    """The entry of the evidence kept for the scans keyed ``scans`` of a tree of the modules
    ``python`` (two projects scanned alike keep two entries)."""
    return entry_key("\0".join(f"{rel}\0{module}" for rel, _, module in python).encode(), scans)


@dataclass(frozen=True, slots=True)
class Judged:
    """A knob's evidence, the knob it was found for (a digest of it), and what its walks
    read: the modules (relative paths) and the questions ``(module, name)``."""

    mark: str
    evidence: Evidence | None
    modules: tuple[str, ...]
    asked: tuple[tuple[str, str], ...]


@dataclass(frozen=True, slots=True)
class Kept:
    """The evidence still good for the files as they are, the files' statuses as kept, and
    the digest of each Python module's bytes as they are now (where known without reading
    them again)."""

    knobs: dict[str, Judged]
    files: dict[str, Status | None]
    digests: dict[str, str]


def mark(knob: Knob) -> str:
    """A digest of everything about ``knob`` its evidence can depend on (its sites, their
    lines and verdicts)."""
    return hashlib.sha256(repr(knob).encode()).hexdigest()


def judge(code: CodeEvidence, tree: Tree, knob: Knob) -> Judged:
    """``knob``'s evidence from ``code``, with what its walks read."""
    reads = tree.reads = Reads()
    try:
        found = code.evidence(knob)
    finally:
        tree.reads = None
    return Judged(mark(knob), found, tuple(reads.modules), tuple(reads.asked))


class KeptEvidence:
    """The evidence read back from the cache where it is still good, the rest from
    ``code`` with what its walks read; ``found`` holds every knob's, to keep."""

    def __init__(self, code: CodeEvidence, tree: Tree, kept: Kept | None) -> None:
        self.code = code
        self.tree = tree
        self.kept = kept.knobs if kept is not None else {}
        self.found: dict[str, Judged] = {}
        self.computed = 0
        # Judged already (in worker processes) by knob name: taken where the mark matches.
        self.ready: dict[str, Judged] = {}
        track(tree, code)

    def holds(self, knob: Knob) -> bool:
        """Whether the kept evidence of ``knob`` still holds (nothing to judge)."""
        judged = self.kept.get(knob.name)
        return judged is not None and judged.mark == mark(knob)

    def evidence(self, knob: Knob) -> Evidence | None:
        """The knob's evidence, as kept when it still holds."""
        marked = mark(knob)
        judged = self.kept.get(knob.name)
        if judged is None or judged.mark != marked:
            judged = self.ready.get(knob.name)
            if judged is None or judged.mark != marked:
                judged = judge(self.code, self.tree, knob)
            self.computed += 1
        self.found[knob.name] = judged
        return judged.evidence


def load(cache: Cache, entry: str, found: Mapping[str, Status], python: Python) -> Kept | None:
    """The kept evidence of the knobs whose walks read nothing that changed since; None when
    there is none, it is damaged, or the tree's Python modules are not those it was found
    in (a module added, removed or renamed changes what names refer to)."""
    stored = cache.get(_entry(entry, python))
    if not isinstance(stored, dict):
        return None
    try:
        rels = [rel for rel, _ in stored["python"]]
        if stored["python"] != [[rel, module] for rel, _, module in python]:
            return None
        files = stored["files"]
        digests = stored["digests"]
        if not isinstance(files, dict) or not isinstance(digests, dict):
            return None
        moved = {rel: path for rel, path, _ in python if files.get(rel) != found.get(rel)}
        texts = {rel: _data(path) for rel, path in moved.items()}
        now = {rel: digest(data) for rel, data in texts.items() if data is not None}
        for rel, found_digest in now.items():
            if digests.get(rel) == found_digest:
                del texts[rel]  # its status moved, its bytes are as they were
        knobs = {}
        for name, item in stored["knobs"].items():
            judged = _decoded(item, rels)
            if not any(rel in texts for rel in judged.modules) and not any(
                _may_answer(texts[rel], question) for question in judged.asked for rel in texts
            ):
                knobs[name] = judged
        unmoved = {rel: digests[rel] for rel, _, _ in python if rel not in moved}
    except (KeyError, TypeError, ValueError, IndexError, AttributeError):
        return None  # a damaged or forged entry: a miss
    if not all(isinstance(d, str) for d in unmoved.values()):
        return None
    return Kept(knobs, files, {**unmoved, **now})


def save(
    cache: Cache,
    entry: str,
    found: Mapping[str, Status],
    python: Python,
    judged: Mapping[str, Judged],
    digests: Mapping[str, str],
) -> None:
    """Keep the evidence with the files' statuses (a file modified too recently to trust its
    times is kept as changed) and the digest of each Python module's bytes (``digests``:
    those known as the files are now; the rest are read) (nothing when the cache folder
    cannot be written)."""
    recent = time.time_ns() - RACY_NS
    rels = {rel: number for number, (rel, _, _) in enumerate(python)}
    payload = {
        "files": {rel: None if int(s[1]) >= recent else s for rel, s in sorted(found.items())},
        "digests": {rel: _digest_of(rel, path, digests) for rel, path, _ in python},
        "python": [[rel, module] for rel, _, module in python],
        "knobs": {name: _encoded(j, rels) for name, j in sorted(judged.items())},
    }
    with contextlib.suppress(CacheError):
        cache.put(_entry(entry, python), payload)


def files_kept(found: Mapping[str, Status]) -> dict[str, Status | None]:
    """The statuses ``save`` would keep now (to tell whether the entry needs saving again)."""
    recent = time.time_ns() - RACY_NS
    return {rel: None if int(s[1]) >= recent else s for rel, s in sorted(found.items())}


def digest(data: bytes) -> str:
    """The digest a module's bytes are kept as."""
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def _digest_of(rel: str, path: Path, known: Mapping[str, str]) -> str:
    found = known.get(rel)
    if found is not None:
        return found
    data = _data(path)
    return digest(data) if data is not None else ""  # unreadable: never equal to a digest


def _data(path: Path) -> bytes | None:
    try:
        return read_bytes(path, MAX_MODULE_BYTES)
    except (SourceError, OSError):
        return None


def _may_answer(data: bytes | None, question: tuple[str, str]) -> bool:
    """Whether a module with the text ``data`` may be among the answers to ``question``
    (the index answers with the modules whose text holds the name and the module's last
    name, and more tests after; an unreadable module may be anything)."""
    if data is None:
        return True
    module, name = question
    home = module.rsplit(".", 1)[-1]
    return name.encode() in data and home.encode() in data


_RIVALS = "rivals"  # kept after the evidence's fields: Evidence.rivals


def _encoded(judged: Judged, rels: Mapping[str, int]) -> list[Any]:
    evidence = judged.evidence
    return [
        judged.mark,
        None
        if evidence is None
        else [
            evidence.role.value,
            evidence.reason,
            evidence.value,
            evidence.default_reaches,
            *([[list(pair) for pair in evidence.together]] if evidence.together else []),
            *([_RIVALS] if evidence.rivals else []),
        ],
        [rels[rel] for rel in judged.modules],
        [list(question) for question in judged.asked],
    ]


def _decoded(item: Any, rels: Sequence[str]) -> Judged:
    digest, stored, modules, asked = item
    if not isinstance(digest, str):
        raise TypeError(item)
    evidence = None
    if stored is not None:
        role, reason, value, reaches, *more = stored
        if not isinstance(reason, str) or not (value is None or isinstance(value, str)):
            raise TypeError(item)
        rivals = _RIVALS in more
        more = [part for part in more if part != _RIVALS]
        if (
            not isinstance(reaches, bool)
            or len(more) > 1
            or not all(isinstance(part, list) for part in more)
        ):
            raise TypeError(item)
        together = tuple((str(n), str(v)) for n, v in more[0]) if more else ()
        evidence = Evidence(Role(role), reason, value, reaches, together=together, rivals=rivals)
    questions = []
    for question in asked:
        module, name = question
        if not isinstance(module, str) or not isinstance(name, str):
            raise TypeError(item)
        questions.append((module, name))
    return Judged(digest, evidence, tuple(rels[n] for n in modules), tuple(questions))
