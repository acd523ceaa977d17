"""A switch between kernels of each value's own under one of whose values the tree's own
launcher turns the framework's deterministic mode off is a kernel choice: a bitwise run
takes the other value (scanner.reach.mode_undone)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scanner import Polarity, Role, scan
from scanner.roles import Evidence
from scanner.run import proposals
from tests.conftest import write_tree

# InternLM/xtuner b934f46: xtuner/v1/ops/flash_attn/__init__.py:4-45 (FA3 against FA2, by
# XTUNER_USE_FA3), xtuner/v1/utils/misc.py:27-58 (XTUNER_DETERMINISTIC, set_deterministic),
# examples/v1/scripts/run_sft.sh:21-25 (FA3 on turns the deterministic mode off).
FILES = {
    "xtuner/__init__.py": "",
    "xtuner/flash_attn.py": (
        "import os\n\n\n"
        "def get_flash_attn_varlen():\n"
        '    if os.environ.get("XTUNER_USE_FA3", "0") == "1":\n'
        "        from flash_attn_interface import flash_attn_varlen_func\n"
        "    else:\n"
        "        from flash_attn import flash_attn_varlen_func\n"
        "    return flash_attn_varlen_func\n\n\n"
        "flash_attn_varlen_func = get_flash_attn_varlen()\n"
    ),
    "xtuner/misc.py": (
        "import os\n\nimport torch\n\n"
        'XTUNER_DETERMINISTIC = os.getenv("XTUNER_DETERMINISTIC") == "true"\n\n\n'
        "def set_deterministic():\n"
        '    os.environ["CUBLAS_WORKSPACE_CONFIG"] = ":16:8"\n'
        "    torch.use_deterministic_algorithms(True, warn_only=True)\n\n\n"
        "def setup():\n"
        "    if XTUNER_DETERMINISTIC:\n"
        "        set_deterministic()\n"
    ),
    "examples/run_sft.sh": (
        "#!/bin/bash\n"
        'export XTUNER_USE_FA3="${XTUNER_USE_FA3:-1}"\n'
        "# FA3 does not support deterministic backward for Qwen3.5's head_dim=256.\n"
        'if [[ "${XTUNER_USE_FA3}" == "1" ]]; then\n'
        "  export XTUNER_DETERMINISTIC=false\n"
        "fi\n"
        "torchrun train.py\n"
    ),
}

REASON = (
    "each value reaches a kernel of its own: unset, FlashAttention "
    "(flash_attn.flash_attn_varlen_func) at xtuner/flash_attn.py:8; XTUNER_USE_FA3='1', "
    "FlashAttention 3 (flash_attn_interface.flash_attn_varlen_func) at xtuner/flash_attn.py:6; "
    "with XTUNER_USE_FA3='1' the tree's launcher turns XTUNER_DETERMINISTIC, the framework's "
    "deterministic mode, off (XTUNER_DETERMINISTIC='false' at examples/run_sft.sh:5): a "
    "bitwise run takes '0'"
)


def test_the_side_the_launcher_runs_without_the_mode_is_left(tmp_path: Path) -> None:
    write_tree(tmp_path, FILES)
    knob = scan([tmp_path], root=tmp_path, jobs=1).knob("XTUNER_USE_FA3")
    assert knob is not None
    assert (knob.role, knob.polarity, knob.off_value, knob.role_reason) == (
        Role.KERNEL,
        Polarity.ENABLE,
        "0",
        REASON,
    )


def _changed(rel: str, old: str, new: str) -> dict[str, str]:
    files = dict(FILES)
    assert old in files[rel]
    files[rel] = files[rel].replace(old, new)
    return files


UNDECIDED = [
    # no launcher write under the switch: kernel against kernel, a person must say
    ("no-write", _changed("examples/run_sft.sh", "  export XTUNER_DETERMINISTIC=false\n", "")),
    # the write turns the mode on, not off
    (
        "the-mode-turned-on",
        _changed("examples/run_sft.sh", "XTUNER_DETERMINISTIC=false", "XTUNER_DETERMINISTIC=true"),
    ),
    # the variable written is no deterministic mode (its code calls no deterministic API)
    (
        "no-mode",
        _changed(
            "xtuner/misc.py",
            "    torch.use_deterministic_algorithms(True, warn_only=True)\n",
            "    torch.manual_seed(0)\n",
        ),
    ),
    # the write is under another condition as well: not the switch's value alone
    (
        "another-condition",
        _changed(
            "examples/run_sft.sh",
            '[[ "${XTUNER_USE_FA3}" == "1" ]]',
            '[[ "${XTUNER_USE_FA3}" == "1" ]] && [[ "${HEAD_DIM}" == "256" ]]',
        ),
    ),
]


@pytest.mark.parametrize("files", [c[1] for c in UNDECIDED], ids=[c[0] for c in UNDECIDED])
def test_a_kernel_against_a_kernel_stays_undecided(tmp_path: Path, files: dict[str, str]) -> None:
    write_tree(tmp_path, files)
    knob = scan([tmp_path], root=tmp_path, jobs=1).knob("XTUNER_USE_FA3")
    assert knob is not None
    assert knob.role is Role.UNKNOWN
    assert (knob.role_reason or "").startswith("each value reaches a kernel of its own")


@pytest.mark.parametrize("together", [(), (("A", "1"),)], ids=["alone", "together"])
def test_the_kept_evidence_holds_it(together: tuple[tuple[str, str], ...]) -> None:
    """Evidence kept with the scan's cache (scanner.run.proposals) comes back with the mark
    that each value reaches a kernel of its own."""
    evidence = Evidence(Role.UNKNOWN, "each value reaches ...", together=together, rivals=True)
    judged = proposals.Judged("digest", evidence, ("a.py",), ())
    encoded = json.loads(json.dumps(proposals._encoded(judged, {"a.py": 0})))
    assert proposals._decoded(encoded, ["a.py"]) == judged
