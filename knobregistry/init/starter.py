"""`knobs init`: a starting registry written from a scan, every knob `untriaged`."""

from __future__ import annotations

import os
import stat
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass, replace
from importlib import resources
from pathlib import Path

from knobregistry._io.files import FileError, not_regular, read_bytes, reason
from knobregistry._text.paths import shown
from knobregistry._text.plural import counted
from knobregistry._text.printable import printable
from knobregistry.catalogue import Entry, Kind, Platform, for_name
from knobregistry.init.mode_settings import checked_by_tests, mode_entries, mode_settings
from knobregistry.registry import holds_name
from knobregistry.registry.pyproject import REPOSITORY_MARKERS, folders_up
from knobregistry.registry.schema import schema_text
from knobregistry.registry.site_reads import sites_disagree, sites_yaml
from knobregistry.registry.yaml_format import entry_fields, gate_summary, yaml_key, yaml_string
from scanner import Knob, ModeWrite, Polarity, Role, ScanError, ScanResult

HEADER = """\
#
# The knob registry of this project: the environment variables that gate code
# paths (fused kernels above all), with their triage for bitwise determinism.
# Written by `knobs init` from a scan; `knobs check` now reconciles it with the
# code and fails when they drift apart.
#
# Every knob starts `untriaged`, with the `role` the scan proposes from the code
# (what it controls: kernel, determinism, stack, feature, safety, launch, debug,
# value, fact or unknown) and the evidence. Confirm each role by writing it plainly
# (`role: kernel`); say what a kernel knob gates, for example
#     gates: {kernel: fused RMSNorm (Triton), pass: both}
# then measure it and set `triage` (reproducible, breaks-bitwise, or exempt
# with a `reason`), the `evidence`, its `cost` when turned off and an `owner`.
# `knobs explain NAME` shows where a knob is read, with the code around it.
#
# `default_on` says whether the knob is on when unset (null for a value, or for a
# gate the scan could not decide: such a knob says why under `undecided`, no
# profile touches it, and `knobs check` notes it, without failing, until you have
# read the code, written `default_on` and removed `undecided`). `polarity: disable`
# marks a knob whose on value turns its feature off (X_DISABLE_FUSED=1); profiles
# speak of the feature. Keep values quoted ("0", "1"): YAML reads a bare 0 as a
# number and a bare off as false. Paths are relative to the folder of this file.

version: 1

# What `knobs check` scans. Policy `all`: every knob the scan finds must be
# registered; `default-on` would require only the knobs whose feature is on by
# default, and those whose gate the scan could not decide.
scan:
"""

PROFILES = """
# Profiles: named recipes that `knobs export --profile NAME` writes as a file to
# source. `bitwise` turns off every kernel choice that is on by default (in its
# code, or where `launched_on` says the tree's launchers turn it on) and not
# triaged reproducible (nor exempt, a deliberate waiver) and every knob triaged
# breaks-bitwise, turns on the framework's deterministic mode, and sets the
# stack's determinism settings to their deterministic values. It touches no other
# role, and no knob whose gate is undecided or whose role is unknown: `knobs
# export` names those it left as the code has them. A knob registered later is
# covered too.
profiles:
  bitwise:
    description: Bit-for-bit reproducible runs; kernel choices off, the deterministic mode on.
    kind: bitwise
    select:
      - role: kernel
        default_on: true
        triage_not: [reproducible, exempt]
        set: "off"
      - triage: breaks-bitwise
        set: "off"
      - role: determinism
        set: "on"
      - role: stack
        set: deterministic
"""


@dataclass(frozen=True, slots=True)
class Starter:
    """The text of a starting registry, and what the scan left out of it."""

    text: str
    knobs: tuple[Knob, ...]  # the knobs written
    skipped: tuple[str, ...]  # names no registry can hold (registry.holds_name)
    templates: tuple[ScanError, ...] = ()  # launchers to fill in, left out of the scan
    # The settings the project's own deterministic mode writes, registered under `external`.
    mode_settings: tuple[ModeWrite, ...] = ()


# The copy of the schema `knobs init` writes beside a registry outside this repository.
SCHEMA_COPY = "registry.schema.json"
_INSTALLED = frozenset({"site-packages", "dist-packages"})


def shipped_schema() -> Path:
    """The registry's JSON schema file, as this installation ships it: what a registry in
    the same repository names; its copy holds ``schema_text()``, the lists filled in."""
    return Path(str(resources.files("knobregistry.registry").joinpath("schema.json")))


@dataclass(frozen=True, slots=True)
class SchemaCopy:
    """Whether `knobs init` writes its copy of the schema, and if not, what it says."""

    write: bool
    note: str | None = None  # why a file already there is left as it is


def schema_copy(path: Path, force: bool) -> SchemaCopy:
    """What to do at ``path``, the copy of the schema: write it where there is nothing;
    keep the same text; replace other text only with ``force``; and never write through a
    symbolic link, nor over anything but a regular file."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return SchemaCopy(True)
    except OSError as exc:
        return SchemaCopy(False, _kept(path, f"it cannot be read ({reason(exc)})"))
    if stat.S_ISLNK(mode):
        return SchemaCopy(
            False,
            _kept(path, "it is a symbolic link, and knobs init writes no file through one")
            + "; remove it, then run knobs init again, to get the schema this knobs ships.",
        )
    if not stat.S_ISREG(mode):
        return SchemaCopy(False, _kept(path, not_regular(mode)) + ".")
    try:
        same = read_bytes(path, follow=False) == schema_text().encode("utf-8")
    except FileError as exc:
        return SchemaCopy(False, _kept(path, f"it cannot be read ({exc.reason})") + ".")
    if same:
        return SchemaCopy(False)
    if force:
        return SchemaCopy(True)
    return SchemaCopy(
        False,
        _kept(path, "it differs from the schema this knobs ships (edited, or from another version)")
        + "; pass --force to replace it.",
    )


def _kept(path: Path, why: str) -> str:
    return f"left {path.as_posix()} as it is: {why}"


def schema_reference(folder: Path) -> str | None:
    """The shipped schema relative to ``folder`` when it lies in the same repository
    (vendored, not installed into a virtual environment); None otherwise, when the
    registry needs a copy of its own (SCHEMA_COPY). Never a path into someone's venv."""
    schema = shipped_schema()
    root = _repository_root(folder)
    installed = _INSTALLED.intersection(schema.absolute().parts)
    if root is not None and not installed and schema.absolute().is_relative_to(root):
        return shown(schema, folder)
    return None


def _repository_root(folder: Path) -> Path | None:
    """The nearest folder at or above ``folder`` holding ``.git`` or ``.hg``."""
    for candidate in folders_up(folder.absolute()):
        if any((candidate / marker).exists() for marker in REPOSITORY_MARKERS):
            return candidate
    return None


def render_starter(
    result: ScanResult,
    *,
    paths: Sequence[str],
    exclude: Sequence[str] = (),
    match: Sequence[str] = (),
    schema: str,
    stack: Sequence[Entry] = (),
) -> Starter:
    """The registry text for ``result``; ``paths`` are relative to the registry's folder.
    ``stack`` are the catalogue's settings that apply: variables no scanned knob reads go
    under `external`, calls and attributes under `config`, and the bitwise profile sets them."""
    checked = checked_by_tests(result.knobs, result.mode_writes)
    knobs = tuple(
        _stack_role(k, stack) for k in result.knobs if holds_name(k.name) and k.name not in checked
    )
    skipped = tuple(k.name for k in result.knobs if not holds_name(k.name))
    lines = [f"# yaml-language-server: $schema={schema}", *HEADER.splitlines()]
    lines.append("  paths:")
    lines.extend(f"    - {yaml_string(p)}" for p in paths)
    templates = tuple(sorted((e for e in result.errors if e.template), key=lambda e: e.path))
    if exclude or templates:
        lines.append("  exclude:")
        lines.extend(f"    - {yaml_string(v)}" for v in exclude)
    for template in templates:
        why = printable(
            f"Left out by `knobs init`: {template.template} is a placeholder to fill in, not "
            "bash; once the script is filled in, remove it here so that `knobs check` reads it."
        )
        lines.extend(f"    # {line}" for line in textwrap.wrap(why, 84, break_long_words=False))
        lines.append(f"    - {yaml_string(template.path)}")
    if match:
        lines.append("  match:")
        lines.extend(f"    - {yaml_string(v)}" for v in match)
    lines.extend(["  policy: all", ""])
    on = sum(1 for k in knobs if k.default_on)
    found = counted(len(knobs), "knob")
    lines.append(f"# {found} found by the scan, {on} of them on by default.")
    if not knobs:
        lines.append("knobs: {}")
    else:
        lines.append("knobs:")
    for index, knob in enumerate(knobs):
        if index:
            lines.append("")
        lines.extend(_entry(knob))
    if skipped:
        names = ", ".join(yaml_string(name) for name in skipped)
        lines.extend(["", f"# Not registered, as no registry can hold the name: {names}."])
        lines.append("# `knobs check` leaves such names out too.")
    scanned = {k.name for k in knobs}
    variables = [e for e in stack if e.kind is Kind.VARIABLE and e.name not in scanned]
    calls = [e for e in stack if e.kind is not Kind.VARIABLE]
    written = mode_settings(result.mode_writes, scanned | {e.name for e in stack})
    if variables or written:
        lines.extend(["", *STACK_COMMENT.splitlines(), "external:"])
        lines.extend(_stack_variables(variables))
        lines.extend(mode_entries(written))
    if calls:
        lines.extend(["", *CALLS_COMMENT.splitlines(), "config:"])
        for entry in calls:
            lines.extend(_stack_call(entry))
    lines.extend(PROFILES.splitlines())
    if calls:
        lines.append("    config:")
        lines.extend(f"      {yaml_key(e.name)}: {_yaml_value(e.deterministic)}" for e in calls)
    return Starter(
        text="\n".join(lines) + "\n",
        knobs=knobs,
        skipped=skipped,
        templates=templates,
        mode_settings=tuple(written),
    )


STACK_COMMENT = """\
# The stack's determinism settings that apply to this project, from the catalogue
# knobs ships (`knobs catalogue` lists it with its sources). Libraries read them, not
# the scanned code; the bitwise profile sets each to its `deterministic` value, and
# unsets each that `must_stay_unset` (`knobs check` notes a launcher that sets one)."""

CALLS_COMMENT = """\
# The stack's settings that are calls or attributes, not variables: the bitwise profile
# holds their values, and `knobs export --profile bitwise --format python` writes them
# as a module for the training script to import first."""


def _stack_role(knob: Knob, stack: Sequence[Entry]) -> Knob:
    """``knob`` with the role `stack` when the catalogue has a setting of that name that
    applies to the project (the scanner's own table knows only a few)."""
    found = [e for e in stack if e.kind is Kind.VARIABLE and e.name == knob.name]
    if not found:
        return _other_platform(knob)
    if knob.role is Role.STACK:
        return knob
    first = found[0]
    if first.must_stay_unset:
        what = f"{first.meaning}, which must stay unset"
    elif first.flags:
        each = "; ".join(f"{f.text}: {f.meaning}" for f in first.flags)
        what = f"{first.meaning}; the recipe adds its deterministic flags to them ({each})"
    else:
        what = f"{first.value_text!r} gives {first.meaning}"
    reason = f"a determinism setting of {first.library} in the catalogue: {what} ({first.source})"
    return replace(knob, role=Role.STACK, role_reason=reason)


def _other_platform(knob: Knob) -> Knob:
    """``knob`` left (role unknown) where it would be a switch the recipe acts on but the
    catalogue has it only as a library's setting for another platform (TRITON_INTERPRET:
    Triton's interpreter, for CPU runs): the variable is the library's, whatever the tree's
    own branches on it reach. Unless its deterministic value is the library's own default
    and leads away from the kernel the tree's own code runs unset (text-generation-inference
    db931fc flash_causal_lm.py:1595-1602 turns TunableOp on unless PYTORCH_TUNABLEOP_ENABLED
    is "0"): then the setting is the stack's, at that value, on every platform (the library
    reads it as it does unset)."""
    if knob.role not in (Role.KERNEL, Role.DETERMINISM):
        return knob
    found = [
        e for e in for_name(knob.name) if e.kind is Kind.VARIABLE and e.platform is not Platform.ANY
    ]
    if not found:
        return knob
    first = found[0]
    platform = first.platform.value
    if _leads_away_as_unset(knob, found):
        reason = (
            f"a determinism setting of {first.library} for {platform} runs in the catalogue: "
            f"{first.value_text!r} gives {first.meaning}, and is the library's own default "
            f"({first.source}); the tree's own code reads it: {knob.role_reason}"
        )
        return replace(knob, role=Role.STACK, role_reason=reason)
    reason = (
        f"a setting of {first.library} for {platform} runs in the catalogue ({first.meaning}; "
        f"{first.source}), not a switch of this tree's: the recipe leaves it (`knobs init "
        f"--platform {platform}` for a {platform} run)"
    )
    return replace(knob, role=Role.UNKNOWN, role_reason=reason)


def _leads_away_as_unset(knob: Knob, found: Sequence[Entry]) -> bool:
    """Whether every catalogue setting of ``knob`` has one deterministic value, the
    library's default, which turns off each site of the tree's own kernel switch that is on
    by default (so writing it turns the tree's kernel off and leaves the library as it is
    unset)."""
    values = {e.deterministic for e in found}
    if len(values) != 1 or any(e.default is None or e.default != e.deterministic for e in found):
        return False
    value = values.pop()
    if not isinstance(value, str) or knob.role is not Role.KERNEL or not knob.default_on:
        return False
    if knob.polarity is not Polarity.ENABLE:
        return False
    on = [s.gate for s in knob.sites if s.gate.default_on]
    return bool(on) and all(value in gate.off_values for gate in on)


def _stack_variables(found: Sequence[Entry]) -> list[str]:
    """One `external` entry per variable (two libraries reading one name share it)."""
    lines: list[str] = []
    names = list(dict.fromkeys(e.name for e in found))
    for name in names:
        same = [e for e in found if e.name == name]
        first = same[0]
        lines.extend(
            [
                f"  {yaml_key(name)}:",
                f"    library: {yaml_string(' / '.join(e.library for e in same))}",
                f"    description: {yaml_string(first.meaning)}",
                "    role: stack",
            ]
        )
        if first.must_stay_unset:
            lines.append("    must_stay_unset: true")
        else:
            lines.append(f"    deterministic: {yaml_string(first.value_text)}")
        if first.default is not None:
            lines.append(f"    default: {yaml_string(first.default)}")
        lines.append(f"    cost: {yaml_string(first.cost)}")
        lines.append(f"    source: {yaml_string(first.source)}")
    return lines


def _stack_call(entry: Entry) -> list[str]:
    return [
        f"  {yaml_key(entry.name)}:",
        "    backend: stack",
        f"    description: {yaml_string(f'{entry.library}: {entry.meaning}')}",
        f"    cost: {yaml_string(entry.cost)}",
        f"    source: {yaml_string(entry.source)}",
    ]


def _yaml_value(value: str | bool | None) -> str:
    if value is None:  # a call or attribute never must stay unset (the schema says so)
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    return yaml_string(value)


def _entry(knob: Knob) -> list[str]:
    first = knob.sites[0]
    where = f"{first.path}:{first.line}"
    more = len(knob.sites) - 1
    if more:
        where += f" and {counted(more, 'more site')}"
    # A comment is one line: a default a heredoc computes spans many, and each line of it
    # would otherwise be bare YAML.
    lines = [f"  {yaml_key(knob.name)}:", printable(f"    # {gate_summary(knob)}; read at {where}")]
    if knob.conflict_reason:
        lines.append(printable(f"    # conflict: {knob.conflict_reason}"))
    lines.extend(f"    {field}" for field in entry_fields(knob, polarity=True))
    if sites_disagree(knob):
        lines.append(
            "    # how each site reads it: `knobs check` fails when the code reads it otherwise"
        )
        lines.extend(f"    {field}" for field in sites_yaml(knob))
    return lines
