"""The types of the trainers' config keys, for the scanner's YAML verdicts: read from the
source of megatron-core's and torchtitan's config classes where they are installed,
never imported (importing them imports torch)."""

from __future__ import annotations

import functools
import importlib.util
from collections.abc import Iterator, Mapping
from pathlib import Path
from types import MappingProxyType

from scanner.launcher.config_classes import field_types
from scanner.launcher.config_verdict import merge_types

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


@functools.cache
def trainer_config_types() -> Mapping[str, str]:
    """Every config key the installed trainers' config classes type (bool, number, text,
    or mixed where two disagree); empty when neither is installed."""
    tables = [field_types(_read(path)) for path in _source_files()]
    return MappingProxyType(merge_types(table.items() for table in tables))


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
