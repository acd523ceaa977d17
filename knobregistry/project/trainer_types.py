"""The types of the trainers' config keys, for the scanner's YAML verdicts: read from the
source of megatron-core's and torchtitan's config classes where they are installed,
never imported (importing them imports torch). Every scan needs them (they are part of its
settings' key), so they are kept on disk under the status of the files they are read from
(``knobregistry.project.fields_cache``): a warm scan reads one small file instead of parsing ten."""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType

from knobregistry._io.cache import default_cache_dir
from knobregistry.project.fields_cache import cached_at
from scanner.launcher.config_classes import field_types
from scanner.launcher.config_verdict import BOOL, MIXED, NUMBER, TEXT, merge_types

FORMAT = 1  # bump when the stored table or what it is read with changes
_KINDS = frozenset({BOOL, MIXED, NUMBER, TEXT})

# The dataclasses a Megatron trainer config is built from (TransformerConfig
# inherits ModelParallelConfig's fields; MLATransformerConfig adds MLA's). Kept here,
# not in knobregistry.profiles, so that `knobs scan` reads them without loading the
# registry and profile code.
CONFIG_CLASSES: tuple[tuple[str, str], ...] = (
    ("megatron.core.model_parallel_config", "ModelParallelConfig"),
    ("megatron.core.transformer.transformer_config", "TransformerConfig"),
    ("megatron.core.transformer.transformer_config", "MLATransformerConfig"),
    ("megatron.core.optimizer.optimizer_config", "OptimizerConfig"),
    ("megatron.core.distributed.distributed_data_parallel_config", "DistributedDataParallelConfig"),
)
# The source files, by top-level package: megatron-core's config dataclasses (the modules
# `knobs check` validates keys against), and torchtitan's job-config sections.
_SOURCES: Mapping[str, tuple[str, ...]] = {
    "megatron": tuple(
        "/".join(module.split(".")[1:]) + ".py"
        for module in dict.fromkeys(m for m, _ in CONFIG_CLASSES)
    ),
    "torchtitan": ("config/*.py",),
}


@dataclass(frozen=True, slots=True)
class ClassesMissing:
    """Why a trainer's config classes could not be read: not installed, or failed to import."""

    reason: str


@functools.cache
def trainer_config_types() -> Mapping[str, str]:
    """Every config key the installed trainers' config classes type (bool, number, text,
    or mixed where two disagree); empty when neither is installed."""
    sources = list(_source_files())
    types = cached_at(_stored_at(sources), lambda: _types(sources), (dict, _decode), None)
    return MappingProxyType(types)


def _types(sources: Sequence[Path]) -> dict[str, str]:
    tables = [field_types(_read(path)) for path in sources]
    return merge_types(table.items() for table in tables)


def _stored_at(sources: Sequence[Path]) -> Path | None:
    """Where the types read from ``sources`` are kept: named by the path, size, modification
    and change times of each (an edit, a reinstall or another trainer changes the name);
    None when there is nothing to read or a file's status cannot be had."""
    if not sources:
        return None
    status: list[object] = [FORMAT]
    for path in sources:
        try:
            found = path.stat()
        except OSError:
            return None
        status.append([str(path), found.st_size, found.st_mtime_ns, found.st_ctime_ns])
    digest = hashlib.sha256(json.dumps(status).encode("utf-8")).hexdigest()[:24]
    return default_cache_dir() / "trainer-types" / f"{digest}.json"


def _decode(document: object) -> dict[str, str]:
    """The stored table; ValueError when it is not one."""
    if not isinstance(document, dict) or not all(
        isinstance(key, str) and kind in _KINDS for key, kind in document.items()
    ):
        raise ValueError("not a table of config key types")
    return document


def _source_files() -> Iterator[Path]:
    for package, patterns in _SOURCES.items():
        for folder in _package_folders(package):
            for pattern in patterns:
                yield from sorted(folder.glob(pattern))


def _package_folders(package: str) -> list[Path]:
    """Where a top-level package is installed, found without importing it."""
    try:
        spec = importlib.util.find_spec(package)
    except (ImportError, ValueError):
        return []
    if spec is None:
        return []
    return [Path(p) for p in spec.submodule_search_locations or ()]


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return ""
