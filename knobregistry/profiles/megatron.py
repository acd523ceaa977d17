"""The field names of megatron-core's config dataclasses, when megatron-core is installed.

Importing megatron-core imports torch (seconds), so this runs only when a check
needs it, once per process.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
import importlib.util
import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from knobregistry.project.fields_cache import cached_fields, installed_version
from knobregistry.project.trainer_types import CONFIG_CLASSES, ClassesMissing


@dataclass(frozen=True, slots=True)
class MegatronFields:
    """Every field of the config dataclasses, with the first class that defines it."""

    version: str
    fields: Mapping[str, str]  # field name -> class name
    classes: tuple[str, ...]  # the classes that could be imported

    def defines(self, key: str) -> bool:
        return key in self.fields


@dataclass(frozen=True, slots=True)
class MegatronMissing(ClassesMissing):
    """Why the fields could not be read: megatron-core is not installed, or failed to import."""


@functools.cache
def megatron_fields() -> MegatronFields | MegatronMissing:
    """The config dataclasses' fields, or why they could not be read; kept on disk by
    megatron-core's version (see fields_cache), so torch is imported once per release."""
    origin = _origin()
    if origin is None:
        return MegatronMissing("megatron-core is not installed")
    what = [f"{module}:{name}" for module, name in CONFIG_CLASSES]
    label = f"reading the config classes of megatron-core {_version()} (once per version)"
    return cached_fields("megatron-core", origin, what, _import_fields, (_encode, _decode), label)


def _origin() -> str | None:
    """Where megatron.core is installed (found without importing it), or None."""
    try:
        spec = importlib.util.find_spec("megatron.core")
    except (ImportError, ValueError):
        return None
    if spec is None:
        return None
    return spec.origin or ",".join(spec.submodule_search_locations or ())


def _encode(found: MegatronFields | MegatronMissing) -> object | None:
    if isinstance(found, MegatronMissing):
        return None
    return {"version": found.version, "fields": dict(found.fields), "classes": found.classes}


def _decode(document: object) -> MegatronFields:
    if not isinstance(document, dict):
        raise ValueError("not a mapping")
    fields = {str(k): str(v) for k, v in document["fields"].items()}
    classes = tuple(str(c) for c in document["classes"])
    return MegatronFields(str(document["version"]), MappingProxyType(fields), classes)


def _import_fields() -> MegatronFields | MegatronMissing:
    """Import megatron-core's config classes (and torch) and read their fields."""
    fields: dict[str, str] = {}
    classes: list[str] = []
    errors: list[str] = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "Transformer Engine and Apex are not installed"
        for module_name, class_name in CONFIG_CLASSES:
            try:
                cls = getattr(importlib.import_module(module_name), class_name)
            except Exception as exc:  # any import failure means: not checkable here
                errors.append(f"{class_name}: {type(exc).__name__}: {exc}")
                continue
            classes.append(class_name)
            for item in dataclasses.fields(cls):
                fields.setdefault(item.name, class_name)
    if not classes:
        return MegatronMissing("megatron-core could not be imported (" + "; ".join(errors) + ")")
    return MegatronFields(_version(), MappingProxyType(fields), tuple(classes))


def _version() -> str:
    return installed_version("megatron-core") or "unknown"
