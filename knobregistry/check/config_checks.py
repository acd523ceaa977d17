"""KNB104 / KNB105: megatron config keys checked against megatron-core's config dataclasses."""

from __future__ import annotations

import difflib
from collections.abc import Callable

from knobregistry.check.backend_keys import Backend, backend_key_diagnostics
from knobregistry.check.codes import rule
from knobregistry.check.diagnostics import Diagnostic
from knobregistry.profiles.megatron import MegatronFields, MegatronMissing, megatron_fields
from knobregistry.registry import Registry

FieldsLookup = Callable[[], "MegatronFields | MegatronMissing"]


def _unknown(key: str, fields: MegatronFields) -> str:
    return (
        f"config key '{key}' is declared `backend: megatron`, but megatron-core "
        f"{fields.version} defines no field of that name in {', '.join(fields.classes)}."
    )


def megatron_key_diagnostics(
    registry: Registry, shown: str, lookup: FieldsLookup = megatron_fields
) -> list[Diagnostic]:
    """Every `backend: megatron` key without `argument` must be a config-dataclass field.

    ``shown`` is the registry file as messages show it. megatron-core is imported
    only when there is a key to check.
    """
    return backend_key_diagnostics(registry, shown, MEGATRON, lookup)


def _fix(key: str, fields: MegatronFields) -> str:
    close = difflib.get_close_matches(key, list(fields.fields), n=1, cutoff=0.8)
    rename = f"rename it to '{close[0]}' ({fields.fields[close[0]]}); or " if close else ""
    argument = "--" + key.replace("_", "-")
    return (
        f"{rename}if it is a Megatron command-line argument, add `argument: {argument}` under "
        f"config.{key}; if Primus adds it, write `backend: primus`."
    )


MEGATRON: Backend[MegatronFields] = Backend(
    name="megatron",
    unknown=rule("KNB104"),
    not_checked=rule("KNB105"),
    checked_against="its config dataclasses",
    install="pip install megatron-core",
    message=_unknown,
    fix=_fix,
)
