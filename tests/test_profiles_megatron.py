"""Trainer-config keys against megatron-core's own config dataclasses."""

from __future__ import annotations

import dataclasses
import sys
import textwrap
import warnings
from pathlib import Path

import pytest
import yaml

from knobregistry.check.profile_checks import check_profiles
from knobregistry.profiles import megatron as lookup
from knobregistry.registry import RegistryError, load_registry
from scanner import ScanResult
from tests.conftest import REPO, run_knobs, write_tree
from tests.test_profiles_checks import titan_of


def test_config_export_is_valid_for_megatron_core(tmp_path: Path) -> None:
    """The bitwise overlay's Megatron keys are fields megatron-core accepts, with these values."""
    pytest.importorskip("megatron.core")
    with warnings.catch_warnings():  # "Transformer Engine and Apex are not installed"
        warnings.simplefilter("ignore")
        from megatron.core.transformer.transformer_config import (  # type: ignore[import-untyped, import-not-found, unused-ignore]
            TransformerConfig,
        )

    result = run_knobs("export", "--profile", "bitwise", "--format", "config", cwd=REPO)
    assert (result.returncode, result.stderr) == (0, "")
    overlay = yaml.safe_load(result.stdout)
    registry = load_registry(REPO / "registry.yaml")
    megatron = {
        key: value
        for key, value in overlay.items()
        if registry.config[key].backend == "megatron" and registry.config[key].argument is None
    }
    assert set(megatron) == {
        "deterministic_mode",
        "cross_entropy_loss_fusion",
        "gradient_accumulation_fusion",
        "moe_permute_fusion",
        "moe_use_legacy_grouped_gemm",
    }
    fields = {f.name for f in dataclasses.fields(TransformerConfig)}
    assert set(megatron) <= fields
    for key in ("seed", "data_parallel_random_init"):  # Megatron arguments, not fields
        assert key in overlay and key not in fields
        assert registry.config[key].argument is not None
    with warnings.catch_warnings():  # its own deprecation notes about CUDA graphs
        warnings.simplefilter("ignore")
        config = TransformerConfig(num_layers=2, hidden_size=64, num_attention_heads=4, **megatron)
    assert {key: getattr(config, key) for key in megatron} == megatron

    # The same lookup `knobs check` uses: the repository's keys pass, a wrong one does not.
    found = lookup.megatron_fields()
    assert isinstance(found, lookup.MegatronFields)
    titan = titan_of(registry)
    # No scan: only the config keys are checked (full_scope=False skips what needs one).
    empty = ScanResult()
    assert check_profiles(registry, empty, cwd=REPO, full_scope=False, torchtitan=titan) == []
    text = (REPO / "registry.yaml").read_text(encoding="utf-8")
    text = text.replace(
        "moe_router_force_load_balancing_type:\n    backend: primus",
        "moe_router_force_load_balancing_type:\n    backend: megatron",
    )
    write_tree(tmp_path, {"registry.yaml": text})
    wrong = load_registry(tmp_path / "registry.yaml")
    (finding,) = check_profiles(wrong, empty, cwd=tmp_path, full_scope=False, torchtitan=titan)
    assert finding.code == "KNB104"
    assert finding.message == (
        "config key 'moe_router_force_load_balancing_type' is declared `backend: megatron`, but "
        f"megatron-core {found.version} defines no field of that name in "
        f"{', '.join(found.classes)}."
    )


def test_without_megatron_core_the_keys_are_noted_not_checked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "megatron", None)  # as if it were not installed
    monkeypatch.setitem(sys.modules, "megatron.core", None)
    lookup.megatron_fields.cache_clear()
    try:
        assert lookup.megatron_fields() == lookup.MegatronMissing("megatron-core is not installed")
        write_tree(
            tmp_path,
            {
                "registry.yaml": textwrap.dedent(
                    """\
                    version: 1
                    config:
                      deterministic_mode:
                        backend: megatron
                        description: Deterministic kernels.
                    """
                )
            },
        )
        registry = load_registry(tmp_path / "registry.yaml")
        (note,) = check_profiles(registry, ScanResult(), cwd=tmp_path)
        assert (note.code, note.severity.value, note.line, note.column) == ("KNB105", "note", 3, 3)
        assert note.message == (
            "megatron-core is not installed, so the config key declared `backend: megatron` "
            "(deterministic_mode) was not checked against its config dataclasses."
        )
    finally:
        lookup.megatron_fields.cache_clear()


def test_argument_is_written_as_on_the_command_line(tmp_path: Path) -> None:
    text = "version: 1\nconfig:\n  seed:\n    backend: megatron\n    description: Seed.\n"
    write_tree(tmp_path, {"ok.yaml": text + "    argument: --seed\n"})
    assert load_registry(tmp_path / "ok.yaml").config["seed"].argument == "--seed"
    write_tree(tmp_path, {"bad.yaml": text + "    argument: seed\n"})
    with pytest.raises(RegistryError) as info:
        load_registry(tmp_path / "bad.yaml", display="bad.yaml")
    assert [p.render() for p in info.value.problems] == [
        "bad.yaml:6:5: config.seed.argument: 'seed' is not valid here: an argument is written "
        "as on the command line: two dashes and its name (--seed)"
    ]
