"""Several variables read together into one decision (scanner/reach/decision_tables.py): a
function that reads N variables and returns an enumeration member per combination of their
values, whose result its caller stores in a trainer setting the table of trainer settings
documents. The recipe writes the whole combination that returns the setting's plain value,
all N lines or none.

Each case is a small package on disk in the shape of the real code it stands for."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from scanner import Polarity, Role
from tests.conftest import run_knobs, write_tree
from tests.scanned import scanned_knob

# alibaba/ROLL mcore_adapter/src/mcore_adapter/models/model_utils.py:1-8 (the enum imported from
# megatron-core), :149-168 (the three reads, the helper, the chain of returns).
UTILS = """\
import os

from megatron.core.transformer.enums import AttnBackend


def check_and_get_attention_backend_by_env(attention_backend: AttnBackend):
    if attention_backend != AttnBackend.auto:
        # user specified attention backend
        return attention_backend
    flash_attn = os.getenv("NVTE_FLASH_ATTN", None)
    fused_attn = os.getenv("NVTE_FUSED_ATTN", None)
    unfused_attn = os.getenv("NVTE_UNFUSED_ATTN", None)

    def is_set_as(env, value):
        return env is not None and env == value

    if is_set_as(flash_attn, "0") and is_set_as(fused_attn, "0") and is_set_as(unfused_attn, "0"):
        return AttnBackend.local
    if is_set_as(flash_attn, "1") and (is_set_as(fused_attn, "0") or is_set_as(unfused_attn, "0")):
        return AttnBackend.flash
    if is_set_as(fused_attn, "1") and (is_set_as(flash_attn, "0") or is_set_as(unfused_attn, "0")):
        return AttnBackend.fused
    if is_set_as(unfused_attn, "1") and (is_set_as(flash_attn, "0") or is_set_as(fused_attn, "0")):
        return AttnBackend.unfused
    return AttnBackend.auto
"""

# ROLL mcore_adapter/src/mcore_adapter/models/model_config.py:13, :23, :247, :374: the config
# (a megatron-core TransformerConfig) stores what the function returns in attention_backend.
CONFIG = """\
from megatron.core.transformer import TransformerConfig

from .model_utils import check_and_get_attention_backend_by_env


class McaModelConfig(TransformerConfig):
    def __post_init__(self):
        self.attention_backend = check_and_get_attention_backend_by_env(self.attention_backend)
"""

SETTING = {"NVTE_FLASH_ATTN": "0", "NVTE_FUSED_ATTN": "0", "NVTE_UNFUSED_ATTN": "1"}
NAMES = tuple(SETTING)


def _tree(config: str = CONFIG, utils: str = UTILS) -> dict[str, str]:
    return {"pkg/__init__.py": "", "pkg/model_utils.py": utils, "pkg/model_config.py": config}


@pytest.mark.parametrize(
    ("name", "polarity", "off", "on"),
    [
        ("NVTE_FLASH_ATTN", Polarity.ENABLE, "0", "1"),
        ("NVTE_FUSED_ATTN", Polarity.ENABLE, "0", "1"),
        ("NVTE_UNFUSED_ATTN", Polarity.DISABLE, "0", "1"),
    ],
)
def test_each_variable_of_the_table_is_a_kernel_choice_with_the_whole_setting(
    tmp_path: Path, name: str, polarity: Polarity, off: str, on: str
) -> None:
    knob = scanned_knob(tmp_path, _tree(), name)
    assert knob.role is Role.KERNEL, knob.role_reason
    assert dict(knob.together) == SETTING
    # the kernel runs unset (AttnBackend.auto); the setting's value turns it off
    assert (knob.polarity, knob.off_value, knob.on_value) == (polarity, off, on)
    feature_on = knob.default_on if polarity is Polarity.ENABLE else not knob.default_on
    assert feature_on is True
    assert knob.role_reason == (
        "with NVTE_FLASH_ATTN='0' and NVTE_FUSED_ATTN='0' and NVTE_UNFUSED_ATTN='1' (all 3 of "
        "them, or none) check_and_get_attention_backend_by_env returns AttnBackend.unfused "
        "(pkg/model_utils.py:24); unset, it returns AttnBackend.auto (pkg/model_utils.py:25); "
        "pkg/model_config.py:8 stores what it returns in attention_backend, which megatron-core "
        "0.16.1 megatron/core/transformer/transformer_config.py:110 documents as the attention "
        "implementation (auto: Transformer Engine picks flash-attn or cuDNN fused attention; "
        "unfused: NVTE_FLASH_ATTN=0 and NVTE_FUSED_ATTN=0 written at language_module.py:119-122, "
        "TE's plain bmm and softmax); 'unfused' runs none of its kernels"
    )


def test_a_result_stored_in_no_documented_setting_says_nothing(tmp_path: Path) -> None:
    config = CONFIG.replace("self.attention_backend =", "self.backend =")
    knob = scanned_knob(tmp_path, _tree(config), "NVTE_FUSED_ATTN")
    assert knob.role is not Role.KERNEL
    assert knob.together == ()


def test_a_table_where_no_full_setting_returns_the_plain_member_says_nothing(
    tmp_path: Path,
) -> None:
    # the unfused arm needs NVTE_FLASH_ATTN unset: no setting of all three returns it
    utils = UTILS.replace(
        'is_set_as(unfused_attn, "1") and (is_set_as(flash_attn, "0") or is_set_as(fused_attn, '
        '"0"))',
        'is_set_as(unfused_attn, "1") and flash_attn is None',
    )
    assert utils != UTILS
    knob = scanned_knob(tmp_path, _tree(utils=utils), "NVTE_FLASH_ATTN")
    assert knob.together == ()
    assert knob.role is not Role.KERNEL


def test_a_variable_bound_again_after_the_reads_says_nothing(tmp_path: Path) -> None:
    utils = UTILS.replace(
        "    def is_set_as", '    flash_attn = flash_attn or "1"\n\n    def is_set_as'
    )
    knob = scanned_knob(tmp_path, _tree(utils=utils), "NVTE_UNFUSED_ATTN")
    assert knob.together == ()


def test_defaults_that_choose_another_member_unset_say_nothing(tmp_path: Path) -> None:
    # unset, each local holds its read's default: all "0" returns AttnBackend.local (megatron-core's
    # own attention), not the documented default auto, so unset runs no kernel the table says
    utils = UTILS.replace('_ATTN", None)', '_ATTN", "0")')
    assert utils.count('_ATTN", "0")') == 3
    knob = scanned_knob(tmp_path, _tree(utils=utils), "NVTE_FLASH_ATTN")
    assert knob.together == ()
    assert knob.role is not Role.KERNEL


def _init(project: Path) -> None:
    result = run_knobs("init", ".", cwd=project)
    assert result.returncode == 0, result.stderr


def _export(project: Path) -> subprocess.CompletedProcess[str]:
    result = run_knobs("export", "--profile", "bitwise", "--explain", cwd=project)
    assert result.returncode == 0, result.stderr
    return result


def _written(text: str) -> dict[str, str]:
    lines = [line.split(" ", 1)[1] for line in text.splitlines() if line.startswith("export ")]
    return {n: v.strip("'") for n, v in (line.split("=", 1) for line in lines)}


def test_the_recipe_writes_the_whole_setting(tmp_path: Path) -> None:
    project = write_tree(tmp_path / "p", _tree())
    _init(project)
    registry = (project / "registry.yaml").read_text(encoding="utf-8")
    assert registry.count('together: {NVTE_FLASH_ATTN: "0", NVTE_FUSED_ATTN: "0"') == 3
    written = _written(_export(project).stdout)
    assert {n: written.get(n) for n in NAMES} == SETTING
    checked = run_knobs("check", cwd=project)
    assert checked.returncode == 0, checked.stdout  # check and export tell the same story


def test_a_setting_the_rules_would_write_in_part_is_left_whole(tmp_path: Path) -> None:
    project = write_tree(tmp_path / "p", _tree())
    _init(project)
    path = project / "registry.yaml"
    text = path.read_text(encoding="utf-8")
    at = text.index("  NVTE_FUSED_ATTN:")
    end = text.index("triage: untriaged", at)
    text = text[:end] + 'triage: reproducible\n    reason: "read"' + text[end + 17 :]
    path.write_text(text, encoding="utf-8")
    result = _export(project)
    written = _written(result.stdout)
    assert not set(NAMES) & set(written), written
    for name in ("NVTE_FLASH_ATTN", "NVTE_UNFUSED_ATTN"):
        assert (
            f"{name} (part of a setting): it chooses a kernel with the others of "
            "NVTE_FLASH_ATTN=0, NVTE_FUSED_ATTN=0, NVTE_UNFUSED_ATTN=1, which the profile's "
            "rules would not all set so: all of it, or none"
        ) in result.stdout + result.stderr


def test_a_warm_scan_keeps_the_setting(tmp_path: Path) -> None:
    project = write_tree(tmp_path / "p", _tree())
    cache = {"KNOBS_CACHE_DIR": str(tmp_path / "cache")}
    runs = [run_knobs("scan", ".", "--format", "json", cwd=project, env=cache) for _ in range(2)]
    assert all(r.returncode == 0 for r in runs), runs[-1].stderr
    cold, warm = (json.loads(r.stdout) for r in runs)
    assert warm == cold
    found = {k["name"]: k.get("together") for k in warm["knobs"]}
    assert found == dict.fromkeys(NAMES, SETTING)
