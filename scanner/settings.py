"""What a scan is asked to do: one frozen ``Settings``, from the command line to the workers.

Its cache key is derived from its fields, so a setting added here changes every file's
key unless it says it cannot change a file's result (``metadata={"keyed": False}``).
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace

from scanner.languages import Language, scanned_names

# The key of a YAML mapping whose entries a test harness or launcher exports (Megatron-LM's
# functional tests: ``ENV_VARS: {NCCL_ALGO: Ring}``).
ENV_BLOCKS: tuple[str, ...] = ("ENV_VARS",)
DEFAULT_INCLUDE: tuple[str, ...] = scanned_names()  # from the table of languages
MAX_FILE_BYTES = 8 * 1024 * 1024
# Fields that only choose which files are read: a file's result never depends on them.
_UNKEYED = {"keyed": False}


@dataclass(frozen=True, slots=True, kw_only=True)
class Settings:
    """Everything that decides what a scan finds (not where it caches, nor how many
    workers it runs)."""

    include: tuple[str, ...] = field(default=DEFAULT_INCLUDE, metadata=_UNKEYED)
    exclude: tuple[str, ...] = field(default=(), metadata=_UNKEYED)  # globs of paths to skip
    match: tuple[str, ...] = ()  # shell-style patterns of the variables to report
    launch_facts: tuple[str, ...] = ()  # more launcher-set variables (patterns)
    accessors: tuple[str, ...] = ()  # more callables to take as accessors, by name
    # Regular expressions, with groups ``name`` and ``value``, of lines a launcher script
    # prints for its runner to export (besides Primus's ``env.NAME=VALUE``).
    printed_writes: tuple[str, ...] = ()
    # The types of trainer-config keys from the trainer's config classes, sorted (key, type:
    # bool, number, text or mixed): what a YAML ``${VAR:1}`` feeding the key is.
    config_types: tuple[tuple[str, str], ...] = ()
    # The keys of YAML mappings that set the environment: their entries are writes.
    env_blocks: tuple[str, ...] = ENV_BLOCKS
    # File-name globs read as a language, before the scanner's own (``*.slurm`` as shell).
    languages: tuple[tuple[str, Language], ...] = ()
    narrow: bool = True  # parse only the statements that matter (same results either way)
    max_file_bytes: int = MAX_FILE_BYTES  # larger files are an error entry

    def key(self) -> str:
        """What the settings add to every file's cache key: a digest of every field that
        can change a file's result."""
        return _key(self)

    def with_types(self, types: Mapping[str, str]) -> Settings:
        """These settings with the trainer-config key types ``types`` (sorted)."""
        return replace(self, config_types=tuple(sorted(types.items())))


@functools.lru_cache(maxsize=8)
def _key(settings: Settings) -> str:
    """Worked out once per settings: the trainer's config types alone are hundreds of keys."""
    digest = hashlib.sha256()
    for each in fields(settings):
        if each.metadata.get("keyed", True):
            digest.update(f"{each.name}={getattr(settings, each.name)!r}\0".encode())
    return digest.hexdigest()
