"""A value handed on under a keyword of the deterministic family (``deterministic_output=``)
into a function of the tree that takes an atomic reduction where the value is false.

Each case is a small tree on disk in the shape of the real code it stands for (the file it
was read from is named above it), scanned; the role, polarity, off value and evidence are
checked."""

from __future__ import annotations

from pathlib import Path

import pytest

from scanner import Polarity, Role
from tests.scanned import role_facts, scanned_knob

# flashinfer-python 0.7.2, flashinfer/experimental/b12x/moe/fused_moe/_impl.py:1455-1469 (a
# flag helper, wrapped by a helper that returns it), :9902-9918 (its value bound to a local
# and handed as deterministic_output= to plan_tp_moe_execution), :7428-7439 and :7574-7596
# (the planner hands bool(deterministic_output) on under the same keyword to
# lower_moe_execution), _shared/execution.py:1134-1181 (ROUTE_BUFFER_TOPK_SUM where it holds,
# ATOMIC_SCATTER where not). The package is imported as ``b12x.moe...``: a top-level ``b12x``
# package of the wheel (b12x/__init__.py) aliases flashinfer/experimental/b12x at import time.
PLANNER = {
    "b12x/__init__.py": "import importlib\n",
    "pkg/__init__.py": "",
    "pkg/b12x/__init__.py": "",
    "pkg/b12x/moe/__init__.py": "",
    "pkg/b12x/moe/execution.py": (
        "import enum\n\n\n"
        "class OutputReduction(enum.Enum):\n"
        '    ROUTE_BUFFER_TOPK_SUM = "route_buffer_topk_sum"\n'
        '    ATOMIC_SCATTER = "atomic_scatter"\n\n\n'
        "def lower_execution(spec, *, deterministic_output=False):\n"
        "    reduction = (\n"
        "        OutputReduction.ROUTE_BUFFER_TOPK_SUM\n"
        "        if deterministic_output\n"
        "        else OutputReduction.ATOMIC_SCATTER\n"
        "    )\n"
        "    return spec, reduction\n"
    ),
    "pkg/b12x/moe/impl.py": (
        "import os\n\n"
        "from b12x.moe.execution import lower_execution\n\n\n"
        "def _env_flag(name, *, default):\n"
        "    value = os.environ.get(name)\n"
        "    if value is None:\n"
        "        return default\n"
        '    return value not in ("", "0", "false", "False")\n\n\n'
        "def _deterministic_enabled(*, device):\n"
        '    if device != "cuda":\n'
        "        return False\n"
        '    return _env_flag("X_DETERMINISTIC_OUTPUT", default=False)\n\n\n'
        "def plan_execution(*, spec, deterministic_output=None):\n"
        "    if deterministic_output is None:\n"
        "        deterministic_output = False\n"
        "    return lower_execution(spec, deterministic_output=bool(deterministic_output))\n\n\n"
        "def run(a, spec):\n"
        "    requested = _deterministic_enabled(device=a)\n"
        "    plan = plan_execution(spec=spec, deterministic_output=requested)\n"
        "    return plan\n"
    ),
}

# The same planner in statement form: ``if not deterministic_output:`` takes the atomic
# scatter (the shape of execution.py:1209-1213 written as an if).
STATEMENT = {
    **PLANNER,
    "pkg/b12x/moe/execution.py": (
        "from pkg.b12x.moe.kernels import atomic_scatter, route_buffer_sum\n\n\n"
        "def lower_execution(spec, *, deterministic_output=False):\n"
        "    if not deterministic_output:\n"
        "        return atomic_scatter(spec)\n"
        "    return route_buffer_sum(spec)\n"
    ),
    "pkg/b12x/moe/kernels.py": (
        "def atomic_scatter(spec):\n    return spec\n\n\n"
        "def route_buffer_sum(spec):\n    return spec\n"
    ),
}

# The keyword alone is no evidence: a deterministic_output= whose function only sizes a
# buffer by it (_impl.py:3998, ``route_output_rows = ... if deterministic_output else 1``).
NO_ATOMIC = {
    **PLANNER,
    "pkg/b12x/moe/execution.py": (
        "def lower_execution(spec, *, deterministic_output=False):\n"
        "    rows = spec if deterministic_output else 1\n"
        "    return spec, rows\n"
    ),
}

# The same flag handed to a Triton kernel's launch (``kernel[grid](..., deterministic_output=
# ...)``, the launch form of state-spaces/mamba e9594ce1 ops/triton/ssd_chunk_scan.py:1460 with
# :601-604, ``tl.atomic_add`` where the flag is false): the launch calls the kernel.
LAUNCH = {
    **PLANNER,
    "pkg/b12x/moe/execution.py": (
        "import triton\nimport triton.language as tl\n\n\n"
        "@triton.jit\n"
        "def _reduce_kernel(out_ptr, x, deterministic_output: tl.constexpr):\n"
        "    if deterministic_output:\n"
        "        tl.store(out_ptr, x)\n"
        "    else:\n"
        "        tl.atomic_add(out_ptr, x)\n\n\n"
        "def lower_execution(spec, *, deterministic_output=False):\n"
        "    _reduce_kernel[(1,)](spec, 1, deterministic_output=deterministic_output)\n"
        "    return spec\n"
    ),
}

HANDED = (
    "X_DETERMINISTIC_OUTPUT='1' makes `bool(deterministic_output)` at pkg/b12x/moe/impl.py:22 "
    "true, and it is handed on as deterministic_output= to lower_execution at "
    "pkg/b12x/moe/impl.py:22, which takes {atomic} where it is false: a call's deterministic "
    "mode"
)

CASES = [
    (
        "a-planner-takes-an-atomic-reduction-where-it-is-false",
        PLANNER,
        Role.DETERMINISM,
        Polarity.ENABLE,
        "0",
        HANDED.format(atomic="OutputReduction.ATOMIC_SCATTER at pkg/b12x/moe/execution.py:13"),
    ),
    (
        "an-if-on-not-the-flag-calls-the-atomic-scatter",
        STATEMENT,
        Role.DETERMINISM,
        Polarity.ENABLE,
        "0",
        HANDED.format(atomic="atomic_scatter at pkg/b12x/moe/execution.py:6"),
    ),
    (
        "a-kernel-launch-takes-an-atomic-add-where-it-is-false",
        LAUNCH,
        Role.DETERMINISM,
        Polarity.ENABLE,
        "0",
        HANDED.format(atomic="tl.atomic_add at pkg/b12x/moe/execution.py:10"),
    ),
    (
        "the-keyword-alone-is-no-evidence",
        NO_ATOMIC,
        Role.UNKNOWN,
        Polarity.ENABLE,
        "0",
        None,
    ),
]


@pytest.mark.parametrize(
    ("files", "role", "polarity", "off", "reason"),
    [c[1:] for c in CASES],
    ids=[c[0] for c in CASES],
)
def test_deterministic_family_keyword(
    tmp_path: Path,
    files: dict[str, str],
    role: Role,
    polarity: Polarity,
    off: str | None,
    reason: str | None,
) -> None:
    knob = scanned_knob(tmp_path, files, "X_DETERMINISTIC_OUTPUT")
    facts = role_facts(knob)
    if reason is None:  # unknown: the name's words are only a hint
        assert facts[:3] == (role, polarity, off)
        assert facts[3] is not None and "DETERMINISTIC" in facts[3]
    else:
        assert facts == (role, polarity, off, reason)
