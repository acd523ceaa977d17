"""The hand-kept flag tables against megatron-core's own `argparse_meta` and fields."""

from __future__ import annotations

import dataclasses
import importlib
import warnings

import pytest

from knobregistry.export.megatron_flags import (
    NEGATIVE,
    NO_FLAG,
    RENAMED,
    Flag,
    Skipped,
    boolean,
)
from knobregistry.profiles.megatron import MegatronFields, megatron_fields
from knobregistry.project.trainer_types import CONFIG_CLASSES


def test_every_renamed_flag_megatron_core_declares_is_in_the_tables() -> None:
    """Where a config field names its own flag (`argparse_meta.arg_names`), the tables agree:
    a boolean that defaults to true under NEGATIVE, anything else under RENAMED."""
    pytest.importorskip("megatron.core")
    declared: dict[str, str] = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for module, name in CONFIG_CLASSES:
            for field in dataclasses.fields(getattr(importlib.import_module(module), name)):
                names = field.metadata.get("argparse_meta", {}).get("arg_names")
                if names:
                    declared[field.name] = names[0]
    assert declared  # megatron-core 0.16 declares sixteen or so
    for field_name, flag in declared.items():
        table = NEGATIVE if flag.startswith(("--no-", "--disable-")) else RENAMED
        assert table.get(field_name) == flag, field_name


def test_every_table_entry_is_a_megatron_core_field() -> None:
    pytest.importorskip("megatron.core")
    fields = megatron_fields()
    assert isinstance(fields, MegatronFields)
    for name in (*NEGATIVE, *RENAMED, *NO_FLAG):
        assert fields.defines(name), name


_CASES = [
    ("deterministic_mode", True, None, False, "--deterministic-mode (convention)"),
    (
        "gradient_accumulation_fusion",
        False,
        None,
        None,
        "--no-gradient-accumulation-fusion (table)",
    ),
    (
        "gradient_accumulation_fusion",
        True,
        None,
        False,
        "skipped: true is Megatron-LM's default (--no-gradient-accumulation-fusion sets false)",
    ),
    ("layernorm_zero_centered_gamma", True, None, False, "--apply-layernorm-1p (table)"),
    (
        "data_parallel_random_init",
        True,
        "--data-parallel-random-init",
        False,
        "--data-parallel-random-init (registry)",
    ),
    ("my_switch", False, "--no-my-switch", True, "--no-my-switch (registry)"),
    (
        "my_switch",
        True,
        "--no-my-switch",
        True,
        "skipped: true is Megatron-LM's default (--no-my-switch sets false)",
    ),
    (
        "add_qkv_bias",
        True,
        None,
        True,
        "skipped: true is its default; --no-add-qkv-bias would set false",
    ),
    ("add_qkv_bias", False, None, True, "--no-add-qkv-bias (convention)"),
]


@pytest.mark.parametrize(("key", "value", "argument", "default", "expected"), _CASES)
def test_boolean_forms(
    key: str, value: bool, argument: str | None, default: object, expected: str
) -> None:
    found = boolean(key, value, argument, default)
    if isinstance(found, Flag):
        assert (found.key, found.values) == (key, ())
        assert f"{found.flag} ({found.origin.value})" == expected
    else:
        assert isinstance(found, Skipped)
        assert (found.key, f"skipped: {found.why}") == (key, expected)
