"""The YAML mappings that fill a config field the tree's code installs into the environment.

ROLL's Hydra configs give ``system_envs: {NCCL_ALGO: Ring, CUBLAS_WORKSPACE_CONFIG:
':4096:8'}`` (examples/qwen2.5-0.5B-agentic/agentic_sokoban_rollout_mock_dump.yaml:14-18),
and the config class installs that field (``scanner.reach.installed_fields``): each entry of
a mapping under such a key, at any depth, is a write of the file, as an ``ENV_VARS:`` block's
entry is (``scanner.launcher.env_blocks``)."""

from __future__ import annotations

from collections.abc import Iterable

from scanner.languages import Language
from scanner.launcher.env_blocks import env_block_writes
from scanner.launcher.yaml_documents import compose
from scanner.model import ScanError, Write
from scanner.settings import Settings
from scanner.source.files import SourceError, SourceFile, read_bytes


def field_block_writes(
    files: Iterable[SourceFile], fields: frozenset[str], settings: Settings
) -> list[Write]:
    """The writes of the YAML files' mappings under a key ``fields`` names, sorted."""
    keys = fields - frozenset(settings.env_blocks)  # those are the YAML reader's already
    if not keys:
        return []
    marks = [f"{key}:".encode() for key in keys]
    found: list[Write] = []
    for file in files:
        if file.language is not Language.YAML:
            continue
        try:
            data = read_bytes(file.path)
        except (SourceError, OSError):
            continue
        if not any(mark in data for mark in marks):
            continue
        documents = compose(file.rel, data.decode("utf-8", errors="replace"))
        if not isinstance(documents, ScanError):
            found.extend(env_block_writes(file.rel, documents, settings, keys))
    return sorted(found, key=lambda w: w.sort_key)
