"""Edit registry.yaml in place with ruamel.yaml: comments, key order and formatting kept.

Only the edited knobs' entries change: their `triage`, and their
`evidence.records`, where a record replaces an earlier one of the same experiment
(updated field by field, so an unchanged value keeps its spelling) or is
appended. The result is validated as a registry before it is written, and
written atomically (a temporary file beside it, then a rename). The registry is
read, edited and written under its lock (lock.py), so that concurrent records
each land in the file as the previous one left it.
"""

from __future__ import annotations

import copy
import io
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any, TypeVar

import yaml as pyyaml
from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.error import YAMLError
from ruamel.yaml.scalarstring import DoubleQuotedScalarString

from knobregistry._io.atomic import write_atomic
from knobregistry._io.files import FileError, read_text
from knobregistry._io.lock import LockError, locked
from knobregistry.registry import RegistryError, Triage, loads_registry

_FLOW_PLAIN = re.compile(r"[A-Za-z0-9_./+=@%~-]+\Z")
_INDENTS = ((2, 4, 2), (2, 2, 0), (4, 6, 4), (4, 4, 0), (4, 6, 2))
_FLOW_KEYS = frozenset({"command", "combined_with", "versions"})
_T = TypeVar("_T")


class RecordError(Exception):
    """The registry could not be edited; nothing was written."""


@dataclass(frozen=True, slots=True, kw_only=True)
class KnobUpdate:
    """What triage writes for one knob: its new status (None: keep it) and its records."""

    name: str
    triage: Triage | None
    records: tuple[dict[str, Any], ...]
    measured: dict[str, Any] | None = None  # `cost.measured`, from --cost


@dataclass(frozen=True, slots=True, kw_only=True)
class ProfileUpdate:
    """A profile triage writes: ``extends`` with ``knobs`` turned back on, and the run
    that verified them together (`--search fastest-bitwise`)."""

    name: str
    description: str
    extends: str | None
    on: tuple[str, ...]  # turned back on (a select rule, `set: on`)
    off: tuple[str, ...]  # turned off (without a profile to extend)
    verified: dict[str, Any]


@dataclass(frozen=True, slots=True, kw_only=True)
class RecordEdit:
    """What was done to one knob's entry."""

    knob: str
    before: str  # its triage status before
    after: str
    added: int  # records appended
    updated: int  # records that replaced one of the same experiment
    missing: bool = False  # the knob is no longer in the file: nothing written for it


def experiment(record: Mapping[str, Any]) -> tuple[Any, ...]:
    """What makes two records the same experiment: a newer one replaces an older one."""
    command = record.get("command")
    return (
        record.get("sweep"),
        tuple(sorted(record.get("combined_with") or ())),
        record.get("profile"),
        tuple(command) if isinstance(command, list) else command,
        record.get("compare"),
        record.get("host"),
        record.get("gpu"),
    )


def edit_registry(
    path: Path,
    updates: Sequence[KnobUpdate],
    shown: str | None = None,
    profile: ProfileUpdate | None = None,
) -> list[RecordEdit]:
    """Apply ``updates`` (and write ``profile``) to the registry file at ``path``;
    raises RecordError.

    ``shown`` is the path as messages show it (default: ``path``).
    """
    display = shown if shown is not None else path.as_posix()
    try:
        with locked(path, display):  # from the read to the rename: no other write between
            return _edit(path, updates, display, profile)
    except LockError as exc:
        raise RecordError(str(exc)) from exc


def _edit(
    path: Path, updates: Sequence[KnobUpdate], display: str, profile: ProfileUpdate | None
) -> list[RecordEdit]:
    def apply(document: Any) -> list[RecordEdit]:
        knobs = document.get("knobs") if isinstance(document, CommentedMap) else None
        edits = [_apply(knobs, update) for update in updates]
        if profile is not None:
            _apply_profile(document, profile, display)
        return edits

    return _edited(path, display, apply)


def add_code(path: Path, code: Mapping[str, tuple[int, Mapping[str, Any]]], shown: str) -> None:
    """Write each knob's `code:` (``code``: by knob, the index of the record in its
    `evidence.records` and the code) into the registry at ``path``; raises RecordError."""

    def apply(document: Any) -> None:
        knobs = document.get("knobs") if isinstance(document, CommentedMap) else None
        for name, (index, units) in code.items():
            entry = knobs.get(name) if isinstance(knobs, CommentedMap) else None
            evidence = entry.get("evidence") if isinstance(entry, CommentedMap) else None
            records = evidence.get("records") if isinstance(evidence, CommentedMap) else None
            record = (
                records[index]
                if isinstance(records, CommentedSeq) and index < len(records)
                else None
            )
            if not isinstance(record, CommentedMap):
                raise RecordError(
                    f"{shown}: knobs.{name}.evidence.records[{index}] is no longer in the "
                    "file; nothing was recorded."
                )
            assert isinstance(entry, CommentedMap)
            trailing = _pop_trailing(entry)
            record["code"] = _value("code", units)
            if trailing is not None:
                _put_trailing(entry, trailing)

    try:
        with locked(path, shown):
            _edited(path, shown, apply)
    except LockError as exc:
        raise RecordError(str(exc)) from exc


def _edited(path: Path, display: str, apply: Callable[[Any], _T]) -> _T:
    """Read the registry, ``apply`` an edit to its document, validate and write it back
    (when it changed); the edit's result."""
    try:
        text = read_text(path)
        editor, document = _editor(text)
    except FileError as exc:
        raise RecordError(f"{display}: cannot read the registry to record: {exc.reason}.") from exc
    except YAMLError as exc:
        raise RecordError(
            f"{display}: cannot read the registry to record: {_yaml_problem(exc)}."
        ) from exc
    done = apply(document)
    out = io.StringIO()
    editor.dump(document, out)
    new = out.getvalue()
    try:
        loads_registry(new, path, display=display)
    except RegistryError as exc:
        raise RecordError(
            f"{display}: the recorded registry would not be valid, so it was not written:\n{exc}"
        ) from exc
    if new != text:
        try:
            write_atomic(path, new)  # through a symlink: the file it points to
        except FileError as exc:
            raise RecordError(exc.message("write", display)) from exc
    return done


def _yaml_problem(exc: YAMLError) -> str:
    """``invalid YAML at line L, column C: problem``, from a ruamel error."""
    problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
    mark = getattr(exc, "problem_mark", None)
    if mark is None:
        return f"invalid YAML: {problem}"
    return f"invalid YAML at line {mark.line + 1}, column {mark.column + 1}: {problem}"


def _editor(text: str) -> tuple[YAML, Any]:
    """A round-trip YAML whose indentation reproduces ``text`` unchanged, when one does,
    and ``text`` loaded by it."""
    for mapping, sequence, offset in _INDENTS:
        editor = _yaml(mapping, sequence, offset)
        document = editor.load(text)
        out = io.StringIO()
        editor.dump(document, out)
        if out.getvalue() == text:
            return editor, document
    editor = _yaml(*_INDENTS[0])
    return editor, editor.load(text)


def _yaml(mapping: int, sequence: int, offset: int) -> YAML:
    editor = YAML(typ="rt")
    editor.preserve_quotes = True
    editor.width = 4096  # never fold a long line
    editor.indent(mapping=mapping, sequence=sequence, offset=offset)
    editor.representer.add_representer(
        type(None), lambda r, _: r.represent_scalar("tag:yaml.org,2002:null", "null")
    )
    return editor


def _apply(knobs: Any, update: KnobUpdate) -> RecordEdit:
    entry = knobs.get(update.name) if isinstance(knobs, CommentedMap) else None
    if not isinstance(entry, CommentedMap):
        return RecordEdit(knob=update.name, before="-", after="-", added=0, updated=0, missing=True)
    trailing = _pop_trailing(entry)
    before = str(entry.get("triage"))
    after = before
    if update.triage is not None and before != Triage.EXEMPT.value:
        after = update.triage.value
        if after != before:
            entry["triage"] = after
        if after != Triage.BREAKS_BITWISE.value and "breaks" in entry:
            del entry["breaks"]
    evidence = entry.get("evidence")
    if not isinstance(evidence, CommentedMap):
        evidence = entry["evidence"] = CommentedMap()
    records = evidence.get("records")
    if not isinstance(records, CommentedSeq):
        records = evidence["records"] = CommentedSeq()
    added = updated = 0
    for record in update.records:
        same = next(
            (r for r in records if isinstance(r, CommentedMap) and _same_experiment(r, record)),
            None,
        )
        if same is None:
            records.append(_node(record))
            added += 1
        else:
            _merge(same, record)
            updated += 1
    if update.measured is not None:
        _set_measured(entry, update.measured)
    if trailing is not None:
        _put_trailing(entry, trailing)
    return RecordEdit(knob=update.name, before=before, after=after, added=added, updated=updated)


def _apply_profile(document: Any, update: ProfileUpdate, display: str) -> None:
    """Write ``update`` under `profiles:`, replacing a profile an earlier search wrote
    (its comments kept); a profile written by hand is never replaced."""
    if not isinstance(document, CommentedMap):
        raise RecordError(f"{display}: the registry is not a mapping; nothing was recorded.")
    profiles = document.get("profiles")
    if profiles is None:
        profiles = document["profiles"] = CommentedMap()
    if not isinstance(profiles, CommentedMap):
        raise RecordError(f"{display}: `profiles` is not a mapping; nothing was recorded.")
    entry = profiles.get(update.name)
    if entry is not None and not (isinstance(entry, CommentedMap) and "verified" in entry):
        raise RecordError(
            f"{display}: profile '{update.name}' exists and was not written by a search, so it "
            "was left as it is; name another with --search-profile NAME. Nothing was recorded."
        )
    fresh = CommentedMap()
    fresh["description"] = _string(update.description, flow=False)
    fresh["kind"] = "bitwise"
    if update.extends is not None:
        fresh["extends"] = _string(update.extends, flow=False)
    rules = CommentedSeq()
    for action, names in (("off", update.off), ("on", update.on)):
        if names:
            rule = CommentedMap()
            rule["match"] = _value("combined_with", list(names))
            rule["set"] = DoubleQuotedScalarString(action)
            rules.append(rule)
    fresh["select"] = rules
    fresh["verified"] = _node(update.verified)
    if entry is None:
        profiles[update.name] = fresh
        return
    trailing = _pop_trailing(entry)
    _merge(entry, fresh, node=lambda key, value: value)  # already nodes
    if trailing is not None:
        _put_trailing(entry, trailing)


def _set_measured(entry: CommentedMap, measured: Mapping[str, Any]) -> None:
    """Write ``measured`` beside the prose: `cost: "..."` becomes `{text: "...", measured}`."""
    cost = entry.get("cost")
    if isinstance(cost, CommentedMap):
        if "measured" in cost and isinstance(cost["measured"], CommentedMap):
            _merge(cost["measured"], measured)
        else:
            cost["measured"] = _node(measured)
        return
    node = CommentedMap()
    if isinstance(cost, str):
        node["text"] = cost  # its quoting kept
    node["measured"] = _node(measured)
    if "cost" in entry:
        comment = entry.ca.items.pop("cost", None)
        entry["cost"] = node
        if comment is not None and len(comment) > 2 and comment[2] is not None:
            node.ca.items["text" if "text" in node else "measured"] = [None, None, comment[2], None]
    else:
        entry["cost"] = node


def _same_experiment(existing: CommentedMap, record: Mapping[str, Any]) -> bool:
    plain = {k: _plain(v) for k, v in existing.items()}
    return experiment(plain) == experiment(record)


def _merge(
    existing: CommentedMap,
    record: Mapping[str, Any],
    node: Callable[[str, Any], Any] | None = None,
) -> None:
    """``existing`` made equal to ``record`` key by key, an unchanged value left as it is
    written; ``node`` makes a value's YAML node (default: ``_value``)."""
    make = node or _value
    for key in [k for k in existing if k not in record]:
        del existing[key]
    for key, value in record.items():
        if key not in existing or _plain(existing[key]) != _plain(value):
            existing[key] = make(key, value)


def _plain(value: Any) -> Any:
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, str):
        return str(value)
    return value


def _node(record: Mapping[str, Any]) -> CommentedMap:
    node = CommentedMap()
    for key, value in record.items():
        node[key] = _value(key, value)
    return node


def _value(key: str, value: Any) -> Any:
    flow = key in _FLOW_KEYS
    node: CommentedMap | CommentedSeq
    if isinstance(value, Mapping):  # a key YAML reads as other than itself is quoted (`on`)
        node = CommentedMap((_string(str(k), flow), _item(k, v, flow)) for k, v in value.items())
    elif isinstance(value, list):
        node = CommentedSeq(_string(str(v), flow) for v in value)
    elif isinstance(value, str):
        return _string(value, flow=False)
    elif isinstance(value, date):  # a fresh object per record: a shared one becomes an alias
        return date.fromordinal(value.toordinal())
    else:
        return value
    if flow:
        node.fa.set_flow_style()
    return node


def _item(key: str, value: Any, flow: bool) -> Any:
    """A value inside a mapping: strings quoted as needed, a mapping (a trace's `read`)
    block by block, numbers and null as they are."""
    if isinstance(value, Mapping):
        return _value(key, value)
    if value is None or isinstance(value, bool | int | float):
        return value
    return _string(str(value), flow)


def _string(value: str, flow: bool) -> str:
    """``value`` plain when every YAML reader reads it back as this string, else quoted."""
    quoted: str = DoubleQuotedScalarString(value)
    if flow and not _FLOW_PLAIN.match(value):
        return quoted
    try:
        plain = value == value.strip() and pyyaml.safe_load(value) == value
    except pyyaml.YAMLError:
        plain = False
    return value if plain else quoted


def _last(node: Any) -> Iterator[tuple[Any, Any]]:
    """The containers down the last branch of ``node`` and their last keys (block style)."""
    while isinstance(node, (CommentedMap, CommentedSeq)) and len(node):
        key = list(node)[-1] if isinstance(node, CommentedMap) else len(node) - 1
        yield node, key
        value = node[key]
        if not isinstance(value, (CommentedMap, CommentedSeq)) or value.fa.flow_style():
            return
        node = value


def _pop_trailing(entry: CommentedMap) -> Any:
    """Detach the comment (blank lines, the next section's comment) after ``entry``'s end."""
    found = list(_last(entry))
    if not found:
        return None
    container, key = found[-1]
    slot = container.ca.items.get(key)
    if not slot or len(slot) < 3 or slot[2] is None:
        return None
    token = slot[2]
    value = str(getattr(token, "value", ""))
    line, newline, rest = value.partition("\n")
    if "#" in line and newline:
        # `cost: '...'  # a note`: the note stays on its line; what follows it moves.
        kept, moved = copy.copy(token), copy.copy(token)
        kept.value, moved.value = line + newline, newline + rest
        slot[2] = kept
        return moved if rest else None
    slot[2] = None
    return token


def _put_trailing(entry: CommentedMap, token: Any) -> None:
    """Attach ``token`` after the new end of ``entry``, where it was before the edit."""
    container, key = list(_last(entry))[-1]
    slot = container.ca.items.setdefault(key, [None, None, None, None])
    while len(slot) < 3:
        slot.append(None)
    slot[2] = token
