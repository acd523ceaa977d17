"""KNB104 / KNB105: megatron config keys checked against megatron-core's config dataclasses."""

from __future__ import annotations

import difflib
from collections.abc import Callable

from knobregistry.diagnostics import Diagnostic
from knobregistry.profiles.megatron import MegatronFields, MegatronMissing, megatron_fields
from knobregistry.profiles.rules import MEGATRON_NOT_CHECKED, UNKNOWN_MEGATRON_KEY
from knobregistry.registry import Registry

FieldsLookup = Callable[[], "MegatronFields | MegatronMissing"]


def megatron_key_diagnostics(
    registry: Registry, shown: str, lookup: FieldsLookup = megatron_fields
) -> list[Diagnostic]:
    """Every `backend: megatron` key without `argument` must be a config-dataclass field.

    ``shown`` is the registry file as messages show it. megatron-core is imported
    only when there is a key to check.
    """
    keys = [
        key.name
        for key in registry.config.values()
        if key.backend == "megatron" and key.argument is None
    ]
    if not keys:
        return []
    fields = lookup()
    if isinstance(fields, MegatronMissing):
        line, column = registry.position("config", keys[0])
        count = f"{len(keys)} config keys" if len(keys) > 1 else "the config key"
        verb = "were" if len(keys) > 1 else "was"
        return [
            MEGATRON_NOT_CHECKED.diagnostic(
                shown,
                line,
                column,
                f"{fields.reason}, so {count} declared `backend: megatron` "
                f"({', '.join(keys)}) {verb} not checked against its config dataclasses.",
                fix="pip install megatron-core",
            )
        ]
    found: list[Diagnostic] = []
    for key in keys:
        if fields.defines(key):
            continue
        line, column = registry.position("config", key)
        found.append(
            UNKNOWN_MEGATRON_KEY.diagnostic(
                shown,
                line,
                column,
                f"config key '{key}' is declared `backend: megatron`, but megatron-core "
                f"{fields.version} defines no field of that name in "
                f"{', '.join(fields.classes)}.",
                fix=_fix(key, fields),
            )
        )
    return found


def _fix(key: str, fields: MegatronFields) -> str:
    close = difflib.get_close_matches(key, list(fields.fields), n=1, cutoff=0.8)
    rename = f"rename it to '{close[0]}' ({fields.fields[close[0]]}); or " if close else ""
    argument = "--" + key.replace("_", "-")
    return (
        f"{rename}if it is a Megatron command-line argument, add `argument: {argument}` under "
        f"config.{key}; if Primus adds it, write `backend: primus`."
    )
