"""A mode read through a descriptor registry and tested against an enumeration's member.

sgl-project/sglang 0.5.23: ``SGLANG_OPT_GATE_GEMV_MODE = EnvInt(GateGemvMode.PAIR)``
(srt/environ.py:1918, the IntEnum at :208-219), read in srt/models/inkling_common/moe.py:357
and tested as ``gemv_mode != GateGemvMode.OFF and x.shape[0] <= ... and x.is_contiguous()``
(:358-365): OFF (0) takes the cuBLAS GEMM through torch.mm (moe.py:66-69,107), any other
mode the JIT GEMV. Three things decide it: the descriptor's default, given when the variable
is unset or does not parse, is the read's own value (as ``os.getenv(N, default)``'s is);
``GateGemvMode.PAIR`` and ``GateGemvMode.OFF`` are the numbers they equal; and the member
imported from another module is that number where the branches are followed.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from scanner import GateKind, Polarity, Role, scan
from scanner.source.kept_classes import enum_members
from tests.conftest import write_tree
from tests.scanned import KERNEL, role_facts, scanned_knob

# sglang 0.5.23, srt/environ.py: EnvField (:45) takes the variable's name from the attribute
# (__set_name__), EnvInt (:153) converts the value and falls back to the default
# (_resolve_default, :62) when it is unset or does not parse (EnvField.get, :67-86), class
# Envs (:251) declares the variables; envs = Envs() (:2182).
ENVIRON = (
    "import os\nimport warnings\nfrom enum import IntEnum\n\n\n"
    "class EnvField:\n"
    "    def __init__(self, default):\n"
    "        self.default = default\n"
    "        self._set_to_none = False\n\n"
    "    def __set_name__(self, owner, name):\n"
    "        self.name = name\n\n"
    "    def parse(self, value):\n"
    "        raise NotImplementedError()\n\n"
    "    def _resolve_default(self):\n"
    "        return self.default() if callable(self.default) else self.default\n\n"
    "    def get(self):\n"
    "        value = os.getenv(self.name)\n"
    "        if self._set_to_none:\n"
    "            assert value == str(None)\n"
    "            return None\n"
    "        if value is None:\n"
    "            return self._resolve_default()\n"
    "        try:\n"
    "            return self.parse(value)\n"
    "        except ValueError as e:\n"
    "            default = self._resolve_default()\n"
    '            warnings.warn(f"Invalid value for {self.name}: {e}")\n'
    "            return default\n\n\n"
    "class EnvInt(EnvField):\n"
    "    def parse(self, value):\n"
    "        return int(value)\n\n\n"
    "class GateGemvMode(IntEnum):\n"
    "    OFF = 0\n"
    "    PAIR = 1\n"
    "    FUSED = 2\n\n\n"
    "class Envs:\n"
    "    X_GATE_GEMV_MODE = EnvInt({default})\n\n\n"
    "envs = Envs()\n"
)
MOE = (
    "import torch\n\n"
    "from pkg.environ import GateGemvMode, envs\n"
    "from pkg.kernels import fused_rms_norm\n\n"
    "_GATE_GEMV_MAX_TOKENS = 32\n\n\n"
    "class Gate:\n"
    "    def forward_fused(self, x):\n"
    "        gemv_mode = envs.X_GATE_GEMV_MODE.get()\n"
    "        if (\n"
    "            gemv_mode != {off}\n"
    "            and x.shape[0] <= _GATE_GEMV_MAX_TOKENS\n"
    "            and x.is_contiguous()\n"
    "        ):\n"
    "            return fused_rms_norm(x)\n"
    "        return torch.mm(x, self.weight.T)\n"
)


def _tree(default: str, off: str) -> dict[str, str]:
    return {
        "pkg/__init__.py": "",
        "pkg/kernels.py": KERNEL,
        "pkg/environ.py": ENVIRON.replace("{default}", default),
        "pkg/moe.py": MOE.replace("{off}", off),
    }


# The evidence of both gate tests: unset reaches the GEMV's kernel, '0' leaves it.
GEMV_KERNEL = (
    "unset, it runs the branch of `gemv_mode != GateGemvMode.OFF and x.shape[0] <= "
    "_GATE_GEM...` at pkg/moe.py:13, which reaches calls fused_rms_norm "
    "(pkg/kernels.py:10) -> calls _fwd_kernel (pkg/kernels.py:6) -> @triton.jit "
    "_fwd_kernel at pkg/kernels.py:6; X_GATE_GEMV_MODE='0' leaves that branch, and what "
    "runs instead reaches no such kernel"
)


def test_a_mode_tested_against_its_enumeration_member_is_a_kernel_switch(tmp_path: Path) -> None:
    knob = scanned_knob(
        tmp_path, _tree("GateGemvMode.PAIR", "GateGemvMode.OFF"), "X_GATE_GEMV_MODE"
    )
    assert (knob.kind, knob.default_on) == (GateKind.BOOLEAN, True)
    assert role_facts(knob) == (
        Role.KERNEL,
        Polarity.ENABLE,
        "0",
        GEMV_KERNEL,
    )


def test_a_descriptor_default_decides_a_test_it_shares_with_other_conditions(
    tmp_path: Path,
) -> None:
    """The default alone (no enumeration): unset, the test holds as far as the mode goes."""
    knob = scanned_knob(tmp_path, _tree("1", "0"), "X_GATE_GEMV_MODE")
    assert (knob.kind, knob.default_on, knob.off_value) == (GateKind.BOOLEAN, True, "0")
    assert knob.role is Role.KERNEL


def test_only_members_that_equal_their_values_are_numbers() -> None:
    """``IntEnum``, ``IntFlag`` and ``StrEnum`` members equal their values; a plain
    ``Enum``'s equal nothing but themselves (``Mode.OFF == 0`` is False)."""
    source = (
        "class A(IntEnum):\n    OFF = 0\n    NAME = 'x'\n"
        "class B(enum.StrEnum):\n    TORCH = 'torch'\n"
        "class C(Enum):\n    OFF = 0\n"
        "class D:\n    OFF = 0\n"
    )
    classes = [s for s in ast.parse(source).body if isinstance(s, ast.ClassDef)]
    assert [enum_members(c) for c in classes] == [{"OFF": 0}, {"TORCH": "torch"}, {}, {}]


def _namespace_tree(default: str, off: str) -> dict[str, str]:
    """The wheel's layout: ``sglang/srt`` has no ``__init__.py`` (a namespace package), so
    moe.py's module is ``inkling_common.moe`` and ``sglang.srt.environ`` lies above its root."""
    moe = MOE.replace("{off}", off).replace("pkg.environ", "sglang.srt.environ")
    return {
        "sglang/__init__.py": "",
        "sglang/srt/kernels.py": KERNEL,
        "sglang/srt/environ.py": ENVIRON.replace("{default}", default),
        "sglang/srt/models/inkling_common/__init__.py": "",
        "sglang/srt/models/inkling_common/moe.py": moe.replace("pkg.kernels", "sglang.srt.kernels"),
    }


def test_a_member_imported_from_a_namespace_package_is_its_value(tmp_path: Path) -> None:
    """sglang/srt has no __init__.py: the import names a module above the importing file's
    root (moe.py:34 imports ``from sglang.srt.environ import GateGemvMode``)."""
    knob = scanned_knob(
        tmp_path, _namespace_tree("GateGemvMode.PAIR", "GateGemvMode.OFF"), "X_GATE_GEMV_MODE"
    )
    assert (knob.kind, knob.default_on, knob.off_value) == (GateKind.BOOLEAN, True, "0")
    assert knob.role is Role.KERNEL


# moe.py:357-379 whole: inside the mode's test, FUSED runs the fused GEMV (:366-376) and PAIR
# the plain one (:377); OFF never enters the test and runs the cuBLAS GEMM (:378-379).
MOE_NESTED = (
    "import torch\n\n"
    "from pkg.environ import GateGemvMode, envs\n"
    "from pkg.kernels import fused_rms_norm\n\n"
    "_GATE_GEMV_MAX_TOKENS = 32\n\n\n"
    "class Gate:\n"
    "    def forward_fused(self, x):\n"
    "        gemv_mode = envs.X_GATE_GEMV_MODE.get()\n"
    "        if (\n"
    "            gemv_mode != GateGemvMode.OFF\n"
    "            and x.shape[0] <= _GATE_GEMV_MAX_TOKENS\n"
    "            and x.is_contiguous()\n"
    "        ):\n"
    "            if gemv_mode >= GateGemvMode.FUSED:\n"
    "                return fused_rms_norm(x)\n"
    "            logits = fused_rms_norm(x)\n"
    "        else:\n"
    "            logits = torch.mm(x, self.weight.T)\n"
    "        return logits\n"
)


def test_a_test_inside_a_joined_test_runs_only_where_the_joined_test_lets_it(
    tmp_path: Path,
) -> None:
    """'0' fails ``gemv_mode != GateGemvMode.OFF and ...`` whatever the rest holds, so the
    inner ``not (gemv_mode >= GateGemvMode.FUSED)`` side never runs under '0'; before, only
    a lone comparison held an inner branch back, and '0' was said to reach the GEMV."""
    files = {**_tree("GateGemvMode.PAIR", "GateGemvMode.OFF"), "pkg/moe.py": MOE_NESTED}
    knob = scanned_knob(tmp_path, files, "X_GATE_GEMV_MODE")
    assert role_facts(knob) == (
        Role.KERNEL,
        Polarity.ENABLE,
        "0",
        GEMV_KERNEL,
    )


# A read in the folder scanned, tested against a member of an enumeration that a namespace
# package above it defines (the shape of sglang srt/models/inkling_common/moe.py:34,357).
ABOVE = {
    "sglang/__init__.py": "",
    "sglang/srt/environ.py": (
        "from enum import IntEnum\n\n\nclass GateGemvMode(IntEnum):\n    OFF = 0\n    PAIR = 1\n"
    ),
    "sglang/srt/models/__init__.py": "",
    "sglang/srt/models/moe.py": (
        "import os\n\nfrom sglang.srt.environ import GateGemvMode\n\n\n"
        "def gemv_on():\n"
        '    return int(os.environ.get("X_MODE", "1")) != GateGemvMode.OFF\n'
    ),
}


@pytest.mark.parametrize(
    ("scanned", "facts"),
    [(".", (GateKind.BOOLEAN, True, "0")), ("sglang/srt/models", (GateKind.VALUE, None, None))],
    ids=["the-whole-checkout", "only-the-models-folder"],
)
def test_no_module_above_the_folder_scanned_is_read(
    tmp_path: Path, scanned: str, facts: tuple[GateKind, bool | None, str | None]
) -> None:
    """The enumeration is read where the folder scanned holds it, never above that folder:
    a tree reads the same beside any other checkout (slime's imports of ``sglang.srt`` found
    a sibling sglang checkout through the ancestor search)."""
    write_tree(tmp_path, ABOVE)
    root = tmp_path / scanned
    knob = scan([root], root=root, jobs=1).knob("X_MODE")
    assert knob is not None
    assert (knob.kind, knob.default_on, knob.off_value) == facts
