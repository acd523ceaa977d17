"""A launcher switch whose test passes the trainer a documented kernel flag is a kernel choice
(scanner/launcher/shell_flags.py records the flags, scanner/reach/passed_flags.py reads them).

Each case is a small launcher on disk in the shape of the real one it stands for."""

from __future__ import annotations

from pathlib import Path

import pytest

from scanner import Polarity, Role
from tests.scanned import scanned_knob

# NVIDIA/Megatron-LM d98e8a64 examples/rl/model_configs/common.sh:32-42: a switch with a true
# default whose branch adds CUDA-graph flags to the options the trainer is started with.
COMMON = """\
COMMON_OPTIONS="--lr 1e-6"
if [ ${LOWER_PRECISION:-false} == true ]; then
    ENABLE_CUDA_GRAPH=false
fi

if [ ${ENABLE_CUDA_GRAPH:-true} == true ]; then
    COMMON_OPTIONS="${COMMON_OPTIONS} --cuda-graph-impl=local --rl-persist-cuda-graphs"
fi
python train.py ${COMMON_OPTIONS}
"""


def test_a_branch_passing_a_documented_kernel_flag_makes_a_kernel_switch(tmp_path: Path) -> None:
    knob = scanned_knob(tmp_path, {"common.sh": COMMON}, "ENABLE_CUDA_GRAPH")
    assert (knob.role, knob.default_on, knob.off_value, knob.polarity) == (
        Role.KERNEL,
        True,
        "false",
        Polarity.ENABLE,
    )
    assert knob.sites[0].passes == (
        ("true", "--cuda-graph-impl=local"),
        ("true", "--rl-persist-cuda-graphs"),
    )
    assert knob.role_reason == (
        "with ENABLE_CUDA_GRAPH=true, the branch of the test at common.sh:6 passes "
        "--cuda-graph-impl=local, which "
        "megatron-core 0.16.1 megatron/core/transformer/transformer_config.py:776 documents as "
        "the CUDA graph capture implementation (none: no CUDA graph; local or "
        "transformer_engine: captured); 'false' leaves the flag out"
    )


@pytest.mark.parametrize(
    "script",
    [
        # a flag no trainer documents: the name alone says GRAPH
        COMMON.replace("--cuda-graph-impl=local ", ""),
        # the documented value that captures nothing
        COMMON.replace("--cuda-graph-impl=local", "--cuda-graph-impl=none"),
        # the branch runs when the variable is anything but true: no one value turns it on
        COMMON.replace("${ENABLE_CUDA_GRAPH:-true} == true", "${ENABLE_CUDA_GRAPH:-true} != true"),
        # a flag that only mentions the key's name inside another word
        COMMON.replace("--cuda-graph-impl=local", "--my-cuda-graph-impl=local"),
    ],
    ids=["undocumented", "none", "not-equal", "longer-flag"],
)
def test_what_a_branch_passes_that_is_not_a_kernel(tmp_path: Path, script: str) -> None:
    knob = scanned_knob(tmp_path, {"common.sh": script}, "ENABLE_CUDA_GRAPH")
    assert knob.role is not Role.KERNEL, knob.role_reason
