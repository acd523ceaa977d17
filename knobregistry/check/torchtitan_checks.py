"""KNB107 / KNB108: torchtitan config keys checked against torchtitan's job-config dataclasses.

The counterpart of config_checks.py (KNB104 / KNB105) for `backend: torchtitan`
keys, which are dotted paths through the job config's sections (`debug.seed`).
"""

from __future__ import annotations

import difflib
from collections.abc import Callable

from knobregistry.check.backend_keys import Backend, backend_key_diagnostics
from knobregistry.check.codes import rule
from knobregistry.check.diagnostics import Diagnostic
from knobregistry.profiles.torchtitan import (
    TorchTitanFields,
    TorchTitanMissing,
    torchtitan_fields,
)
from knobregistry.registry import Registry

__all__ = ["TORCHTITAN", "TitanLookup", "torchtitan_key_diagnostics"]

TitanLookup = Callable[[], "TorchTitanFields | TorchTitanMissing"]


def _unknown(key: str, fields: TorchTitanFields) -> str:
    return (
        f"config key '{key}' is declared `backend: torchtitan`, but torchtitan "
        f"{fields.version} has no such field in {fields.root} (sections: "
        f"{', '.join(fields.sections())})."
    )


def torchtitan_key_diagnostics(
    registry: Registry, shown: str, lookup: TitanLookup = torchtitan_fields
) -> list[Diagnostic]:
    """Every `backend: torchtitan` key without `argument` must be a job-config field path.

    ``shown`` is the registry file as messages show it. torchtitan is imported only
    when there is a key to check.
    """
    return backend_key_diagnostics(registry, shown, TORCHTITAN, lookup)


def _fix(key: str, fields: TorchTitanFields) -> str:
    close = difflib.get_close_matches(key, sorted(fields.keys), n=1, cutoff=0.8)
    rename = f"rename it to '{close[0]}'; or " if close else ""
    return f"{rename}if Primus adds it, write `backend: primus` under config.{key}."


TORCHTITAN: Backend[TorchTitanFields] = Backend(
    name="torchtitan",
    unknown=rule("KNB107"),
    not_checked=rule("KNB108"),
    checked_against="its job config",
    install="pip install torchtitan",
    message=_unknown,
    fix=_fix,
)
