"""KNB107 / KNB108: torchtitan config keys checked against torchtitan's job-config dataclasses.

The counterpart of config_checks.py (KNB104 / KNB105) for `backend: torchtitan`
keys, which are dotted paths through the job config's sections (`debug.seed`).
"""

from __future__ import annotations

import difflib
from collections.abc import Callable

from knobregistry.diagnostics import Diagnostic
from knobregistry.profiles.rules import (
    TORCHTITAN_NOT_CHECKED,
    TORCHTITAN_RULES,
    UNKNOWN_TORCHTITAN_KEY,
)
from knobregistry.profiles.torchtitan import (
    TorchTitanFields,
    TorchTitanMissing,
    torchtitan_fields,
)
from knobregistry.registry import Registry

__all__ = ["TORCHTITAN_RULES", "TitanLookup", "torchtitan_key_diagnostics"]

TitanLookup = Callable[[], "TorchTitanFields | TorchTitanMissing"]


def torchtitan_key_diagnostics(
    registry: Registry, shown: str, lookup: TitanLookup = torchtitan_fields
) -> list[Diagnostic]:
    """Every `backend: torchtitan` key without `argument` must be a job-config field path.

    ``shown`` is the registry file as messages show it. torchtitan is imported only
    when there is a key to check.
    """
    keys = [
        key.name
        for key in registry.config.values()
        if key.backend == "torchtitan" and key.argument is None
    ]
    if not keys:
        return []
    fields = lookup()
    if isinstance(fields, TorchTitanMissing):
        line, column = registry.position("config", keys[0])
        count = f"{len(keys)} config keys" if len(keys) > 1 else "the config key"
        verb = "were" if len(keys) > 1 else "was"
        return [
            TORCHTITAN_NOT_CHECKED.diagnostic(
                shown,
                line,
                column,
                f"{fields.reason}, so {count} declared `backend: torchtitan` "
                f"({', '.join(keys)}) {verb} not checked against its job config.",
                fix="pip install 'knobregistry[torchtitan]'",
            )
        ]
    found: list[Diagnostic] = []
    for key in keys:
        if fields.defines(key):
            continue
        line, column = registry.position("config", key)
        found.append(
            UNKNOWN_TORCHTITAN_KEY.diagnostic(
                shown,
                line,
                column,
                f"config key '{key}' is declared `backend: torchtitan`, but torchtitan "
                f"{fields.version} has no such field in {fields.root} (sections: "
                f"{', '.join(fields.sections())}).",
                fix=_fix(key, fields),
            )
        )
    return found


def _fix(key: str, fields: TorchTitanFields) -> str:
    close = difflib.get_close_matches(key, sorted(fields.keys), n=1, cutoff=0.8)
    rename = f"rename it to '{close[0]}'; or " if close else ""
    return f"{rename}if Primus adds it, write `backend: primus` under config.{key}."
