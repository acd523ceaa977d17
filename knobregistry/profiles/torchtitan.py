"""The dotted config keys of torchtitan's job config (`debug.seed`), when torchtitan is installed.

torchtitan's config is a dataclass of section dataclasses (`debug`, `compile`,
`training`, ...); a key is the path of field names through them. Importing
torchtitan imports torch (seconds), so this runs only when a check needs it,
once per process.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
import importlib.util
import warnings
from dataclasses import dataclass
from typing import Any

from knobregistry.project.fields_cache import cached_fields, installed_version
from knobregistry.project.trainer_types import ClassesMissing

# The root config class, newest layout first: torchtitan 0.3 nests it in the
# trainer (`Trainer.Config`); 0.1 and 0.2 have `JobConfig` in config.job_config,
# earlier releases in config_manager.
ROOTS: tuple[tuple[str, str], ...] = (
    ("torchtitan.trainer", "Trainer.Config"),
    ("torchtitan.config.job_config", "JobConfig"),
    ("torchtitan.config_manager", "JobConfig"),
)
_DEPTH = 6  # sections nest two or three deep; a cycle stops here


@dataclass(frozen=True, slots=True)
class TorchTitanFields:
    """Every dotted key of the job config, and the class that was read."""

    version: str
    root: str  # `torchtitan.trainer.Trainer.Config`
    keys: frozenset[str]

    def defines(self, key: str) -> bool:
        return key in self.keys

    def sections(self) -> list[str]:
        """The top-level sections (keys that hold others), sorted."""
        return sorted({k.split(".", 1)[0] for k in self.keys if "." in k})


@dataclass(frozen=True, slots=True)
class TorchTitanMissing(ClassesMissing):
    """Why the keys could not be read: torchtitan is not installed, or failed to import."""


@functools.cache
def torchtitan_fields() -> TorchTitanFields | TorchTitanMissing:
    """The job config's dotted keys, or why they could not be read; kept on disk by
    torchtitan's version (see fields_cache), so torch is imported once per release."""
    origin = _origin()
    if origin is None:
        return TorchTitanMissing("torchtitan is not installed")
    what = [f"{module}:{path}" for module, path in ROOTS]
    label = f"reading the job config of torchtitan {_version()} (once per version)"
    return cached_fields("torchtitan", origin, what, _import_keys, (_encode, _decode), label)


def _origin() -> str | None:
    """Where torchtitan is installed (found without importing it), or None."""
    try:
        spec = importlib.util.find_spec("torchtitan")
    except (ImportError, ValueError):
        return None
    if spec is None:
        return None
    return spec.origin or ",".join(spec.submodule_search_locations or ())


def _encode(found: TorchTitanFields | TorchTitanMissing) -> object | None:
    if isinstance(found, TorchTitanMissing):
        return None
    return {"version": found.version, "root": found.root, "keys": sorted(found.keys)}


def _decode(document: object) -> TorchTitanFields:
    if not isinstance(document, dict):
        raise ValueError("not a mapping")
    keys = frozenset(str(k) for k in document["keys"])
    return TorchTitanFields(str(document["version"]), str(document["root"]), keys)


def _import_keys() -> TorchTitanFields | TorchTitanMissing:
    """Import torchtitan's job config (and torch) and read its dotted keys."""
    errors: list[str] = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for module_name, path in ROOTS:
            try:
                found: Any = importlib.import_module(module_name)
                for part in path.split("."):
                    found = getattr(found, part)
            except Exception as exc:  # any import failure means: try the next layout
                errors.append(f"{module_name}.{path}: {type(exc).__name__}: {exc}")
                continue
            if isinstance(found, type) and dataclasses.is_dataclass(found):
                keys = frozenset(dotted_keys(found))
                return TorchTitanFields(_version(), f"{module_name}.{path}", keys)
            errors.append(f"{module_name}.{path}: not a dataclass")
    return TorchTitanMissing(
        "torchtitan's job config could not be read (" + "; ".join(errors) + ")"
    )


def dotted_keys(cls: type[Any], prefix: str = "", depth: int = 0) -> list[str]:
    """`section.field` for every field of ``cls``, through the fields that hold dataclasses."""
    keys: list[str] = []
    for item in dataclasses.fields(cls):
        key = prefix + item.name
        keys.append(key)
        if depth < _DEPTH:
            for section in _sections(item):
                keys.extend(dotted_keys(section, key + ".", depth + 1))
    return sorted(set(keys))


def _sections(item: dataclasses.Field[Any]) -> list[type[Any]]:
    """The dataclasses a field holds: its annotation and what its default (factory) makes,
    which may be a subclass with more fields (`tokenizer`, `checkpoint` in torchtitan 0.3)."""
    candidates: list[Any] = [item.type, item.default_factory, type(item.default)]
    return [c for c in candidates if isinstance(c, type) and dataclasses.is_dataclass(c)]


def _version() -> str:
    return installed_version("torchtitan") or "unknown"
