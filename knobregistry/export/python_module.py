"""`--format python`: a module a training script imports first, making the profile's calls
and attribute settings of the stack (torch.use_deterministic_algorithms(True),
torch.backends.cudnn.benchmark = False) that no environment variable can.

Only config keys the catalogue knows as a call or an attribute are written, as code made
from the catalogue's names (identifiers and dots) and `repr` of the profile's value; every
other key is a trainer's and is named in a comment.
"""

from __future__ import annotations

from knobregistry.catalogue import Kind, for_name
from knobregistry.export.common import Export, ExportError, ExportFormat, comment, header
from knobregistry.registry.model import JsonValue


def _kind(key: str) -> Kind | None:
    """CALL or ATTRIBUTE for a catalogued call or attribute; None for a trainer key."""
    kinds = {e.kind for e in for_name(key) if e.kind is not Kind.VARIABLE}
    return kinds.pop() if len(kinds) == 1 else None


def _literal(key: str, value: JsonValue) -> str:
    if isinstance(value, bool) or value is None or isinstance(value, int | float | str):
        return repr(value)
    raise ExportError(
        f"cannot write {key} as Python: its value {value!r} is not a boolean, number or string."
    )


def render_python(export: Export, fmt: ExportFormat) -> str:
    """The module's text; byte-identical from run to run."""
    resolved = export.profile
    lines = header(export, fmt)
    calls = {k: v for k, v in resolved.config.items() if _kind(k) is not None}
    others = [k for k in resolved.config if k not in calls]
    notes = ["", "Import this module first in the training script (before any CUDA work)."]
    if resolved.env or export.unset:
        unset = f" and the {len(export.unset)} it unsets" if export.unset else ""
        notes.append(f"The profile's {len(resolved.env)} variables{unset} are not set here")
        notes.append(f"(libraries read them at load): `{export.command} --format sh` does it.")
    if others:
        notes.append(f"Trainer config keys not written here: {', '.join(others)}.")
    if not calls:
        notes.append("The profile makes no call or attribute setting of the stack.")
    lines.extend(comment("\n".join(notes)))
    if not calls:
        return "\n".join(lines) + "\n"
    modules = sorted({key.split(".", 1)[0] for key in calls})
    lines.append("")
    lines.extend(f"import {module}" for module in modules)
    lines.append("")
    for key, value in calls.items():
        if _kind(key) is Kind.CALL:
            lines.append(f"{key}({_literal(key, value)})")
        else:
            lines.append(f"{key} = {_literal(key, value)}")
    return "\n".join(lines) + "\n"
