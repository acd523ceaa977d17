"""A value knob the code writes as a flag of XLA_FLAGS gets the catalogue's value of that flag
(scanner/reach/flag_values.py): a kernel choice whose off value is the deterministic one.

Each case is a small tree on disk in the shape of the real code it stands for."""

from __future__ import annotations

from pathlib import Path

import pytest

from scanner import GateKind, Role
from tests.scanned import scanned_knob

# AMD-AGI/Primus primus/backends/maxtext/env_spec.py:47-70: the autotune level read into a
# name, then written into the managed XLA_FLAGS by an f-string among literal flags.
SPEC = """\
import os


def build_flags() -> str:
    level = os.getenv("DEMO_AUTOTUNE_LEVEL", "4")
    flags = (
        "--xla_gpu_memory_limit_slop_factor=95 "
        "--xla_gpu_enable_triton_gemm=false "
        f"--xla_gpu_autotune_level={level} "
        "--xla_gpu_enable_all_gather_combine_by_dim=false"
    )
    return flags
"""


def test_a_value_written_as_a_catalogued_flag_takes_the_flags_deterministic_value(
    tmp_path: Path,
) -> None:
    knob = scanned_knob(
        tmp_path, {"pkg/__init__.py": "", "pkg/env_spec.py": SPEC}, "DEMO_AUTOTUNE_LEVEL"
    )
    assert (knob.kind, knob.role, knob.default_on, knob.off_value) == (
        GateKind.VALUE,
        Role.KERNEL,
        True,
        "0",
    )
    assert knob.role_reason == (
        "read at pkg/env_spec.py:5 with the default '4', its value is written as "
        "--xla_gpu_autotune_level= at pkg/env_spec.py:9, a flag of XLA_FLAGS (GEMM, convolution "
        "and fusion configurations chosen by timing them at compile time (0, none timed)); the "
        "catalogue's deterministic value of --xla_gpu_autotune_level is '0'"
    )


@pytest.mark.parametrize(
    ("source", "role"),
    [
        # the default is already the catalogue's value: nothing to set
        (SPEC.replace('"4"', '"0"'), Role.VALUE),
        # a flag the catalogue does not know: a size, not a kernel choice
        (
            SPEC.replace("--xla_gpu_autotune_level=", "--xla_gpu_memory_limit_slop_factor="),
            Role.VALUE,
        ),
        # another name in the f-string: the read's value is not the flag's
        (SPEC.replace("{level}", "{other}"), Role.VALUE),
        # a longer flag that ends the same way is another flag
        (SPEC.replace("--xla_gpu_autotune_level=", "--my_xla_gpu_autotune_level="), Role.VALUE),
    ],
    ids=["default-deterministic", "unknown-flag", "other-name", "longer-flag"],
)
def test_what_is_not_a_catalogued_flag(tmp_path: Path, source: str, role: Role) -> None:
    knob = scanned_knob(
        tmp_path, {"pkg/__init__.py": "", "pkg/env_spec.py": source}, "DEMO_AUTOTUNE_LEVEL"
    )
    assert knob.role is role, knob.role_reason
