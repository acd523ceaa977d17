"""A switch whose sites test one value with opposite senses, tied by its branches.

pytorch/helion ef091f4: benchmarks/run.py:1562 tests HELION_AUTOTUNE_EFFORT `!= "none"`,
examples/fp8_gemm.py:28 `== "none"`, and the library's Settings.autotune_effort (a literal
read through _env_get_literal, runtime/settings.py:546-553) reaches autotuning unless it is
"none" (_compiler/backend.py:1151). Each site's "on" is its test's, so no single value turns
every site off; the branches, followed with "none", leave the autotuning and reach no kernel
instead: "none" is the knob's off value, and init, export and check agree on it."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from knobregistry.cli import main
from scanner import GateKind, Polarity, Role
from scanner.interpret.knobs import build_knobs
from scanner.model import Gate, ReadKind, Site
from scanner.split_off import split_off
from tests.scanned import bitwise_exports, scanned_knob

SETTINGS = """\
from __future__ import annotations

import dataclasses
import functools
import os
from typing import Literal, cast

AutotuneEffort = Literal["none", "quick", "full"]


def _env_get_literal(var_name, default, *, mapping):
    value = os.environ.get(var_name)
    if value is None:
        return default
    value = value.strip()
    if value in mapping:
        return mapping[value]
    raise ValueError(f"{var_name} must be one of {sorted(mapping)}, got {value!r}")


@dataclasses.dataclass
class Settings:
    autotune_effort: AutotuneEffort = dataclasses.field(
        default_factory=functools.partial(
            _env_get_literal,
            "X_AUTOTUNE_EFFORT",
            cast("AutotuneEffort", "full"),
            mapping={key: key for key in ("none", "quick", "full")},
        )
    )
    force_autotune: bool = False
"""

KERNEL = """\
from __future__ import annotations

import triton

from pkg.settings import Settings


class Kernel:
    def __init__(self, fn, configs=None, settings: Settings | None = None) -> None:
        self.fn = fn
        self.configs = configs or []
        self.settings: Settings = settings or Settings()

    def autotune(self, args):
        if self.settings.autotune_effort == "none" and not self.configs:
            return {"block": 32}
        return min(self.configs, key=lambda c: triton.testing.do_bench(lambda: self.fn(*args, **c)))
"""

BENCH = """\
import os

from pkg.kernel import Kernel


def run(attr: Kernel):
    if os.environ.get("X_AUTOTUNE_EFFORT", "") != "none":
        if not attr.configs:
            attr.settings.force_autotune = True
"""

EXAMPLE = """\
import os

config = None
if os.environ.get("X_AUTOTUNE_EFFORT") == "none":
    config = dict(block_sizes=[32, 32, 32])
"""

HELION = {
    "pkg/__init__.py": "",
    "pkg/settings.py": SETTINGS,
    "pkg/kernel.py": KERNEL,
    "benchmarks/run.py": BENCH,
    "examples/gemm.py": EXAMPLE,
}

REASON = (
    "unset, it runs the branch of `not (self.settings.autotune_effort == 'none' and (not "
    "self.con...)` at pkg/kernel.py:15, which reaches candidates timed "
    "(triton.testing.do_bench at pkg/kernel.py:17), the fastest picked by min(..., key=...) "
    "at pkg/kernel.py:17; X_AUTOTUNE_EFFORT='none' leaves that branch, and what runs instead "
    "reaches no such kernel"
)

# A third site, on by default, that reads "none" as on and runs a Triton kernel there: "none"
# leaves the autotuning but keeps that kernel, so no value ties the sites.
KEPT = {
    **HELION,
    "pkg/fused.py": (
        "import os\n\nimport triton\nimport triton.language as tl\n\n\n"
        "@triton.jit\ndef _kernel(x_ptr):\n    tl.store(x_ptr, 1)\n\n\n"
        "def fused(x):\n"
        '    if os.environ.get("X_AUTOTUNE_EFFORT", "full") != "off":\n'
        "        _kernel[(1,)](x)\n"
        "    return x\n"
    ),
}


def test_opposite_tests_of_one_value_are_tied_by_the_branches(tmp_path: Path) -> None:
    knob = scanned_knob(tmp_path, HELION, "X_AUTOTUNE_EFFORT")
    assert [(s.path, s.line, s.column, s.default_on, s.gate.kind) for s in knob.sites] == [
        ("benchmarks/run.py", 7, 8, True, GateKind.BOOLEAN),
        ("examples/gemm.py", 4, 4, False, GateKind.BOOLEAN),
        ("pkg/settings.py", 24, 25, None, GateKind.VALUE),
    ]
    assert (knob.role, knob.polarity, knob.default_on, knob.off_value) == (
        Role.KERNEL,
        Polarity.ENABLE,
        True,
        "none",
    )
    assert knob.role_reason == REASON


def test_init_export_and_check_agree_on_the_tied_value(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    scanned_knob(tmp_path, HELION, "X_AUTOTUNE_EFFORT")
    assert "export X_AUTOTUNE_EFFORT='none'" in bitwise_exports(tmp_path, monkeypatch)
    checked = CliRunner().invoke(main, ["check"])
    assert checked.exit_code == 0, checked.output
    assert checked.output == (
        "No problems: 1 knob in 6 files checked against registry.yaml (policy all).\n"
    )


def test_a_site_that_keeps_its_kernel_under_the_value_keeps_the_knob_undecided(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    knob = scanned_knob(tmp_path, KEPT, "X_AUTOTUNE_EFFORT")
    assert (knob.role, knob.off_value) == (Role.KERNEL, None)
    exported = bitwise_exports(tmp_path, monkeypatch)
    assert not [line for line in exported if line.startswith("export X_AUTOTUNE_EFFORT=")]


def _site(path: str, line: int, gate: Gate) -> Site:
    return Site(
        name="X",
        path=path,
        line=line,
        column=8,
        kind=ReadKind.GET,
        default=None,
        gate=gate,
        function="f",
    )


# `X != "none"` (on unset, off by "none") and `X == "none"` (off unset, on by "none").
_NOT_NONE = Gate(
    kind=GateKind.BOOLEAN, default_on=True, off_values=("none",), on_values=("1", "0", "")
)
_IS_NONE = Gate(
    kind=GateKind.BOOLEAN, default_on=False, off_values=("0", "1", ""), on_values=("none",)
)
# `X != "off"`: on unset and under "none" too.
_NOT_OFF = Gate(
    kind=GateKind.BOOLEAN, default_on=True, off_values=("off",), on_values=("1", "none")
)
_DISABLE = Gate(
    kind=GateKind.BOOLEAN,
    default_on=False,
    off_values=("0",),
    on_values=("none",),
    polarity=Polarity.DISABLE,
)
_UNKNOWN = Gate(kind=GateKind.UNKNOWN, reason="the scanner could not decide")


@pytest.mark.parametrize(
    ("gates", "tied"),
    [
        ((_NOT_NONE, _IS_NONE), "none"),
        ((_NOT_NONE, _NOT_NONE, _IS_NONE), "none"),
        ((_NOT_NONE, _IS_NONE, _NOT_OFF), None),  # "none" keeps the third site on
        ((_NOT_NONE, _DISABLE), None),  # a site that says its test turns the feature off
        ((_NOT_NONE, _IS_NONE, _UNKNOWN), None),  # a site no one decided
        ((_IS_NONE, _IS_NONE), None),  # not split: off unset, "none" turns both on
    ],
    ids=["opposite", "two-and-one", "kept-on", "disable-site", "undecided-site", "not-split"],
)
def test_which_splits_the_branches_tie(gates: tuple[Gate, ...], tied: str | None) -> None:
    (knob,) = build_knobs([_site(f"pkg/m{i}.py", 3, g) for i, g in enumerate(gates)])
    found = split_off(knob, "none")
    assert (found.off_value if found is not None else None) == tied
