"""KNB107 UnknownTorchTitanConfigKey, KNB108 TorchTitanKeysNotChecked: torchtitan config keys
checked against torchtitan's job-config dataclasses.

The counterpart of megatron_keys.py (KNB104 / KNB105) for `backend: torchtitan`
keys, which are dotted paths through the job config's sections (`debug.seed`).
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from typing import TYPE_CHECKING

from knobregistry.check.backend_keys import Backend, backend_key_diagnostics
from knobregistry.check.diagnostics import Diagnostic, Family, Rule, Severity
from knobregistry.check.examples import DATACLASS, PROFILE, example, profiles

if TYPE_CHECKING:
    from knobregistry.profiles.torchtitan import TorchTitanFields, TorchTitanMissing
    from knobregistry.registry import Registry

TitanLookup = Callable[[], "TorchTitanFields | TorchTitanMissing"]

_TORCHTITAN = {
    "torchtitan/__init__.py": "",
    "torchtitan/config/__init__.py": "",
    "torchtitan/config/job_config.py": (
        DATACLASS + "Debug:\n    seed: int | None = None\n\n\n"
        "@dataclass\nclass JobConfig:\n    debug: Debug = field(default_factory=Debug)\n"
    ),
}


def _titan_key(name: str) -> str:
    return f"  {name}:\n    backend: torchtitan\n    description: TorchTitan's seed.\n"


# KNB107's section of docs/profiles.md, below its heading (the site renders it there).
KNB107_SECTION = """\
Keys declared `backend: torchtitan` are dotted paths through torchtitan's job
config (`debug.seed`, `training.deterministic`); with the `torchtitan` extra
installed, a key that is no such path is an error, with the closest path.
"""

KNB107 = Rule(
    code="KNB107",
    name="UnknownTorchTitanConfigKey",
    title="A config key declared `backend: torchtitan` is no field of torchtitan's job config.",
    description=(
        "A trainer-config key declared `backend: torchtitan` is not a path of fields through "
        "torchtitan's job-config dataclasses (checked when torchtitan is installed): the "
        "overlay would set a key TorchTitan rejects."
    ),
    example=(
        "config:\n"
        "  debug.sead:    # no field path of torchtitan's job config\n"
        "    backend: torchtitan"
    ),
    examples=example(
        {**PROFILE, **_TORCHTITAN},
        invalid={"registry.yaml": profiles(config=_titan_key("debug.sead"))},
        valid={"registry.yaml": profiles(config=_titan_key("debug.seed"))},
    ),
    page="profiles.md",
    section=KNB107_SECTION,
    family=Family.PROFILES,
    help=(
        "Fix the name (a dotted path such as debug.seed); if Primus adds the key, declare "
        "`backend: primus`."
    ),
)

# KNB108's section of docs/profiles.md, below its heading (the site renders it there).
KNB108_SECTION = """\
torchtitan is an optional dependency. Without it, the torchtitan keys are not
checked, and one note says so; it does not fail the check.
"""

KNB108 = Rule(
    code="KNB108",
    name="TorchTitanKeysNotChecked",
    title="torchtitan is not installed, so the torchtitan config keys were not checked.",
    description=(
        "torchtitan could not be imported, so the config keys declared `backend: torchtitan` "
        "were not checked against its job config. A note: it does not fail the check."
    ),
    example=("config:\n  debug.seed:\n    backend: torchtitan    # torchtitan is not installed"),
    examples=example(
        {**PROFILE, "registry.yaml": profiles(config=_titan_key("debug.seed"))},
        invalid={"torchtitan/__init__.py": ""},
        valid=_TORCHTITAN,
    ),
    page="profiles.md",
    section=KNB108_SECTION,
    family=Family.PROFILES,
    help=(
        "Install torchtitan in the environment that runs `knobs check` (pip install "
        "torchtitan, on Python 3.11 or newer) to check them."
    ),
    severity=Severity.NOTE,
)


def _unknown(key: str, fields: TorchTitanFields) -> str:
    return (
        f"config key '{key}' is declared `backend: torchtitan`, but torchtitan "
        f"{fields.version} has no such field in {fields.root} (sections: "
        f"{', '.join(fields.sections())})."
    )


def torchtitan_key_diagnostics(
    registry: Registry, shown: str, lookup: TitanLookup | None = None
) -> list[Diagnostic]:
    """Every `backend: torchtitan` key without `argument` must be a job-config field path.

    ``shown`` is the registry file as messages show it. torchtitan is imported only
    when there is a key to check (by ``lookup``; by default, the one installed).
    """
    from knobregistry.profiles.torchtitan import torchtitan_fields

    return backend_key_diagnostics(registry, shown, TORCHTITAN, lookup or torchtitan_fields)


def _fix(key: str, fields: TorchTitanFields) -> str:
    close = difflib.get_close_matches(key, sorted(fields.keys), n=1, cutoff=0.8)
    rename = f"rename it to '{close[0]}'; or " if close else ""
    return f"{rename}if Primus adds it, write `backend: primus` under config.{key}."


TORCHTITAN: Backend[TorchTitanFields] = Backend(
    name="torchtitan",
    unknown=KNB107,
    not_checked=KNB108,
    checked_against="its job config",
    install="pip install torchtitan",
    message=_unknown,
    fix=_fix,
)
