"""What a caller can add to the scanner's conventions, for one scan."""

from __future__ import annotations

from dataclasses import dataclass

# The key of a YAML mapping whose entries a test harness or launcher exports (Megatron-LM's
# functional tests: ``ENV_VARS: {NCCL_ALGO: Ring}``).
ENV_BLOCKS: tuple[str, ...] = ("ENV_VARS",)


@dataclass(frozen=True, slots=True, kw_only=True)
class Settings:
    """Settings the analysis of each file sees (they change its result, and its cache key)."""

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
