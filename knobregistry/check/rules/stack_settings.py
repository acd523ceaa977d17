"""KNB113 BitwiseLacksStackSetting: a bitwise profile that does not set a catalogued
determinism setting of a library the project uses on its platform. KNB115
LauncherSetsUnsetStackSetting: a launcher script that sets a stack setting the
bitwise profile unsets because it must stay unset (a tile override, a tuner plugin).

What the project uses is read from its files (requirements*.txt, pyproject.toml, the scanned
code's imports), never from the environment `knobs check` runs in, so the check gives the
same answer everywhere. The platform is the one the registry's own stack settings belong to.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING

from knobregistry.check.diagnostics import Diagnostic, Family, Rule, Severity
from knobregistry.check.examples import PROFILE, example, profiles
from scanner import Role, WriteKind

if TYPE_CHECKING:
    from knobregistry.catalogue import Entry, Platform
    from knobregistry.check.where import Where
    from knobregistry.profiles import ResolvedProfile
    from knobregistry.project.stack_use import StackUse
    from knobregistry.registry import Registry
    from scanner import ScanResult

_TUNER = (
    "  NCCL_TUNER_PLUGIN:\n    description: An external tuner.\n    role: stack\n"
    "    must_stay_unset: true\n"
)


_STACK_RULE = "    select:\n      - role: stack\n        set: deterministic\n"


# KNB113's section of docs/profiles.md, below its heading (the site renders it there).
KNB113_SECTION = """\
The stack under a framework has its own determinism settings, read in C or C++
inside the libraries: `NCCL_ALGO=Ring`, `CUBLAS_WORKSPACE_CONFIG=:4096:8`,
`ROCBLAS_DEFAULT_ATOMICS_MODE=0`, `torch.use_deterministic_algorithms(True)` and
the others of the shipped catalogue ([The stack's determinism catalogue](catalogue.md)).
A `bitwise` profile that does not give one of them its deterministic value, for a
library the project uses on its platform, leaves that library free to pick a
non-deterministic path.

What the project uses is read from its own files: the packages its
`requirements*.txt` and `pyproject.toml` name, and the modules the scanned code
imports; never from the environment `knobs check` runs in, so CI and a laptop
agree. The platform is the one the registry's own stack settings belong to (an
`NCCL_ALGO` entry of library RCCL: rocm); with none, or settings of two
platforms, only the settings of every platform are asked for. A note: it does not
fail the check. Paths on the command line (a narrowed scan) skip it.

```
registry.yaml:128:3: KNB113 note: profile 'bitwise' (kind bitwise) does not set ROCBLAS_DEFAULT_ATOMICS_MODE: rocBLAS's default atomics mode of new handles (ROCBLAS_DEFAULT_ATOMICS_MODE=0); the project uses rocBLAS (torch (named in requirements.txt)).
    register ROCBLAS_DEFAULT_ATOMICS_MODE under `external:` as `knobs catalogue rocBLAS` gives it and let profile 'bitwise' set it (source: https://sources.debian.org/src/rocblas/6.4.4-2/docs/how-to/Programmers_Guide.rst).
```
"""  # noqa: E501

KNB113 = Rule(
    code="KNB113",
    name="BitwiseLacksStackSetting",
    title="A bitwise profile does not set a catalogued determinism setting of a library the "
    "project uses.",
    description=(
        "The shipped catalogue (`knobs catalogue`) holds the stack's determinism settings: "
        "NCCL_ALGO=Ring, CUBLAS_WORKSPACE_CONFIG, ROCBLAS_DEFAULT_ATOMICS_MODE=0, "
        "torch.use_deterministic_algorithms(True) and more, each with its source. A profile "
        "of kind `bitwise` that does not give one of them its deterministic value, for a "
        "library the project uses (named in its requirements*.txt or pyproject.toml, or "
        "imported by the scanned code) on its platform, leaves that library free to choose "
        "a non-deterministic path. The platform is the one the registry's own stack "
        "settings belong to (an RCCL entry: rocm); with none, only the settings of every "
        "platform are asked for. A note: it does not fail the check."
    ),
    example=(
        "# requirements.txt names torch; the registry has NCCL_ALGO (RCCL, role stack)\n"
        "profiles:\n"
        "  bitwise:\n"
        "    kind: bitwise\n"
        "    select: [{role: stack, set: deterministic}]\n"
        "# no ROCBLAS_DEFAULT_ATOMICS_MODE, no torch.use_deterministic_algorithms"
    ),
    examples=example(
        {**PROFILE, "requirements.txt": "triton\n"},
        invalid={"registry.yaml": profiles().replace('      PYTHONHASHSEED: "0"\n', "")},
        valid={},
    ),
    page="profiles.md",
    section=KNB113_SECTION,
    family=Family.PROFILES,
    help=(
        "Register the setting as `knobs catalogue LIBRARY` gives it (a variable under "
        "`external:` with `role: stack`, a call under `config:` with `backend: stack`) and "
        "let the profile set it, or run `knobs init` in a scratch folder and copy its entries."
    ),
    severity=Severity.NOTE,
)

# KNB115's section of docs/profiles.md, below its heading (the site renders it there).
KNB115_SECTION = """\
Some settings of the stack must stay unset in a run that should reproduce: a tile
or split override of a kernel (Primus-Turbo's `HK_BWD_DQ_KVB`), an external tuner
that picks NCCL's algorithms (`NCCL_TUNER_PLUGIN`), an override of the framework's
own precision (`TORCH_ALLOW_TF32_CUBLAS_OVERRIDE`). The catalogue marks them
`must_stay_unset` ([The stack's determinism catalogue](catalogue.md)); `knobs init`
registers them so, a `bitwise` profile's `role: stack` rule unsets them, and `knobs
export` writes `unset NAME`. A launcher write that sets one again (`export X=...`,
`X=... cmd`, a hook's printed `env.X=...`) undoes that for every run started through
it. A write under a condition that the profile's own values rule out is not
reported. A note: whether the profile's runs go through that launcher is for a
person to say.

```
registry.yaml:24:9: KNB115 profile 'bitwise' (kind bitwise) unsets NCCL_TUNER_PLUGIN (profiles.bitwise.select[0]), a stack setting that must stay unset, but pkg/run.sh:1:8 sets it to 'libnccl-tuner.so' (export): a run started through it has NCCL_TUNER_PLUGIN set.
    remove the write of NCCL_TUNER_PLUGIN (or keep it out of the runs that must reproduce); `knobs catalogue` says why it must stay unset.
```
"""  # noqa: E501

KNB115 = Rule(
    code="KNB115",
    name="LauncherSetsUnsetStackSetting",
    title="A launcher script sets a stack setting that a bitwise profile unsets because it "
    "must stay unset.",
    description=(
        "The catalogue (`knobs catalogue`) marks some library settings as ones a "
        "deterministic run must leave unset: a tile or split override of a kernel "
        "(HK_BWD_DQ_KVB), an external tuner (NCCL_TUNER_PLUGIN), an override of the "
        "framework's own precision (TORCH_ALLOW_TF32_CUBLAS_OVERRIDE). A profile of kind "
        "`bitwise` unsets them (`role: stack`, `set: deterministic`), and `knobs export` "
        "writes `unset NAME`; a launcher write that sets one again (`export X=...`, "
        "`X=... cmd`, a hook's printed `env.X=...`) undoes that for every run started "
        "through it. A write under a condition the profile's values rule out is not "
        "reported. A note: whether the profile's runs go through that launcher is for a "
        "person to say."
    ),
    example=(
        "export NCCL_TUNER_PLUGIN=libnccl-tuner.so      # launch/run.sh\n"
        "external:\n"
        "  NCCL_TUNER_PLUGIN: {role: stack, must_stay_unset: true, ...}\n"
        "profiles:\n"
        "  bitwise:\n"
        "    kind: bitwise\n"
        "    select: [{role: stack, set: deterministic}]"
    ),
    examples=example(
        {
            **PROFILE,
            "registry.yaml": profiles(external=_TUNER) + _STACK_RULE,
        },
        invalid={"pkg/run.sh": "export NCCL_TUNER_PLUGIN=libnccl-tuner.so\n"},
        valid={"pkg/run.sh": "unset NCCL_TUNER_PLUGIN\n"},
    ),
    page="profiles.md",
    section=KNB115_SECTION,
    family=Family.PROFILES,
    help=(
        "Remove the write, or keep it out of the runs that must reproduce; `knobs catalogue "
        "LIBRARY` says why the setting must stay unset."
    ),
    severity=Severity.NOTE,
)


# The writes that leave a variable set (an `unset`, `pop` or `del` does the opposite).
_SETTING = frozenset(
    {
        WriteKind.SET,
        WriteKind.SETDEFAULT,
        WriteKind.PUTENV,
        WriteKind.EXPORT,
        WriteKind.PREFIX,
        WriteKind.PRINTED,
        WriteKind.BLOCK,
    }
)


def registry_platform(registry: Registry) -> Platform | None:
    """The one platform the registry's stack settings belong to; None for none or several."""
    from knobregistry.catalogue import Platform, for_name

    names = [n for n, e in registry.external.items() if e.role is Role.STACK]
    names += [n for n, c in registry.config.items() if c.backend == "stack"]
    found = set()
    for name in names:
        entry = registry.external.get(name)
        libraries = {p.strip() for p in (entry.library or "").split("/")} if entry else set()
        for item in for_name(name):
            if item.platform is not Platform.ANY and (not libraries or item.library in libraries):
                found.add(item.platform)
    return found.pop() if len(found) == 1 else None


def project_stack(registry: Registry, scan: ScanResult) -> StackUse:
    """The catalogue's settings for the project the registry describes (``scan``: its
    scope's scan, whose knobs are the variables its code reads)."""
    from knobregistry.project.stack_use import stack_use

    return stack_use(
        folder=registry.root,
        paths=registry.scan_paths(),
        platform=registry_platform(registry),
        environment=False,
        read={knob.name for knob in scan.knobs},
    )


def lacking(where: Where, resolved: ResolvedProfile, use: StackUse) -> Iterator[Diagnostic]:
    """KNB113 for each applicable setting the bitwise profile ``resolved`` does not give its
    deterministic value."""
    from knobregistry.catalogue import Kind

    name = resolved.name
    for entry in use.entries:
        has, found = _has(resolved, entry)
        if has:
            continue
        how = "; ".join(
            f"{package} ({way})" for package, way in use.found.items() if _brings(entry, package)
        )
        what = f"{entry.library}'s {entry.meaning} ({_shown(entry)})"
        verb = "unset" if entry.must_stay_unset else "set"
        state = f"does not {verb}" if found is None else f"sets {found}, not {_shown(entry)}, for"
        message = (
            f"profile '{name}' (kind bitwise) {state} {entry.name}: {what}; the project uses "
            f"{entry.library} ({how or 'every Python project'})."
        )
        place = "external" if entry.kind is Kind.VARIABLE else "config"
        if found is None:
            fix = (
                f"register {entry.name} under `{place}:` as `knobs catalogue {entry.library}` "
                f"gives it and let profile '{name}' {verb} it (source: {entry.source})."
            )
        elif entry.must_stay_unset:
            fix = (
                f"remove the value profile '{name}' gives {entry.name}: it must stay unset "
                f"(source: {entry.source})."
            )
        else:
            fix = (
                f"give {entry.name} the value {_value(entry)} in profile '{name}' "
                f"(source: {entry.source})."
            )
        yield where.diagnostic(KNB113, ("profiles", name), message, fix, entry.name)


def _has(resolved: ResolvedProfile, entry: Entry) -> tuple[bool, str | None]:
    """Whether the profile gives the entry its value, and what it gives otherwise."""
    from knobregistry.catalogue import Kind

    if entry.kind is Kind.VARIABLE:
        value = resolved.env.get(entry.name)
        if entry.must_stay_unset:
            return entry.name in resolved.unset, None if value is None else repr(value)
        return value == entry.deterministic, None if value is None else repr(value)
    if entry.name not in resolved.config:
        return False, None
    given = resolved.config[entry.name]
    return given == entry.deterministic and type(given) is type(entry.deterministic), json.dumps(
        given
    )


def _value(entry: Entry) -> str:
    from knobregistry.catalogue import Kind

    if entry.kind is Kind.VARIABLE:
        return repr(entry.deterministic)
    return json.dumps(entry.deterministic)


def _shown(entry: Entry) -> str:
    from knobregistry.catalogue import Kind

    if entry.must_stay_unset:
        return f"{entry.name} unset"
    if entry.kind is Kind.VARIABLE:
        return f"{entry.name}={entry.value_text}"
    return json.dumps(entry.deterministic)


def _brings(entry: Entry, package: str) -> bool:
    return any(package == p.lower().replace("_", "-") for p in entry.packages)


def launcher_sets_unset(
    where: Where, resolved: ResolvedProfile, scan: ScanResult
) -> Iterator[Diagnostic]:
    """KNB115 for each write in the scanned launchers (and code) of a stack setting that the
    bitwise profile ``resolved`` unsets because it must stay unset; a write under a condition
    the profile decides is judged by the profile's values."""
    from knobregistry.registry import ProfileKind, SetAction

    for name in resolved.unset:
        source = resolved.sources.get(name)
        if source is None or source.action is not SetAction.DETERMINISTIC:
            continue
        if resolved.roles.get(name) is not Role.STACK:
            continue
        parent = where.registry.profiles.get(source.profile)
        inherited = source.profile != resolved.name and parent is not None
        if inherited and parent is not None and parent.kind is ProfileKind.BITWISE:
            continue  # reported on the parent
        for write in scan.writes:
            if write.name != name or write.kind not in _SETTING:
                continue
            if _ruled_out(write.when, resolved.env):
                continue  # the profile's values keep the write from running
            value = repr(write.value) if write.value is not None else write.computed or "a value"
            under = f" when {write.condition}" if write.condition else ""
            message = (
                f"profile '{resolved.name}' (kind bitwise) unsets {name} ({source}), a stack "
                f"setting that must stay unset, but {where.site(write)} sets it to {value}"
                f"{under} ({write.kind.value}): a run started through it has {name} set."
            )
            fix = (
                f"remove the write of {name} (or keep it out of the runs that must reproduce); "
                f"`knobs catalogue` says why it must stay unset."
            )
            yield where.diagnostic(KNB115, source.key_path, message, fix, name)


def _ruled_out(when: tuple[tuple[str, str], ...], env: Mapping[str, str]) -> bool:
    """Whether the profile sets every variable of a write's condition, and one otherwise."""
    return bool(when) and all(n in env for n, _ in when) and any(env[n] != v for n, v in when)
