"""A knob's evidence is the same judged alone as judged after any other knob: what the reach
keeps of a function it walked for one knob holds for every knob (scanner.reach.walked)."""

from __future__ import annotations

from pathlib import Path

import pytest

from scanner import Role, scan
from scanner.reach.evidence import CodeReach
from scanner.reach.modules import Tree
from scanner.reach.walked import Walked
from scanner.roles import Evidence
from tests.conftest import write_tree

# torch 2.13.0: TORCH_FAKE_TENSOR_DISPATCH_CACHE_CROSSCHECK's branch
# (_subclasses/fake_tensor.py:1745) calls torch/__init__.py:1753 `_check` three calls down,
# which calls _higher_order_ops/cond.py:96 `cond` -> utils.py:100 `_hop_compile_and_call`
# -> torch.compile; TORCHINDUCTOR_COMPREHENSIVE_PADDING's branch (_inductor/ir.py:6437)
# reaches the same `_check` six calls down (ir.py:4426 -> :4341 -> _prims_common
# /__init__.py:1892 -> :1834 -> _check), so torch.compile lies beyond the calls a branch is
# followed: it was a kernel switch only when the crosscheck knob was judged before it.
DEEP = {
    "pkg/__init__.py": "",
    "pkg/checks.py": (
        "import torch\n\n\n"
        "def _check(ok, message=None):\n"
        "    if not ok:\n"
        "        cond(ok, message)\n\n\n"
        "def cond(pred, fn):\n"
        "    return _hop_compile_and_call(fn, pred)\n\n\n"
        "def _hop_compile_and_call(fn, *args):\n"
        '    return torch.compile(fn, backend="eager", fullgraph=True)(*args)\n'
    ),
    "pkg/fake.py": (
        "import os\n\nfrom pkg.checks import _check\n\n\n"
        "def dispatch(out):\n"
        '    if os.environ.get("PKG_CACHE_CROSSCHECK") == "1":\n'
        "        _check(out is not None)\n"
        "    return out\n"
    ),
    "pkg/layout.py": (
        "import os\n\nfrom pkg.checks import _check\n\n\n"
        "def pad_strides(x):\n"
        '    if os.environ.get("PKG_PADDING", "1") == "1":\n'
        "        return _pad(x)\n"
        "    return x\n\n\n"
        "def _pad(x):\n    return _channels_last(x)\n\n\n"
        "def _channels_last(x):\n    return _strides_for(x)\n\n\n"
        "def _strides_for(x):\n    return _strides_1d(x)\n\n\n"
        "def _strides_1d(x):\n    return _strides_2d(x)\n\n\n"
        "def _strides_2d(x):\n    return _strides_3d(x)\n\n\n"
        "def _strides_3d(x):\n    _check(x.dim() > 0)\n    return x\n"
    ),
}

# sglang 0.5.23, kernels/ops/attention/flash_attention_v3.py:31, :71 and :102: the loader
# of the kernels calls a fallback, which names `flash_attn_with_kvcache`, which calls the
# loader again: a cycle. Walked first from the loader (for the first knob), the fallback
# was kept as reaching nothing, its call back into the loader being cut; the second knob,
# whose branch calls the fallback, then lost the kernel the fallback reaches.
CYCLE = {
    "pkg/__init__.py": "",
    "pkg/fa3.py": (
        "from kernels import get_kernel\n\n\n"
        "def _load_kernels():\n"
        '    ops = get_kernel("org/fa3")\n'
        "    if ops is None:\n"
        "        return _load_fallback()\n"
        "    return ops\n\n\n"
        "def _load_fallback():\n"
        '    return {"flash_attn_with_kvcache": flash_attn_with_kvcache}\n\n\n'
        "def flash_attn_with_kvcache(q):\n"
        "    return _load_kernels().flash_attn_with_kvcache(q)\n"
    ),
    "pkg/attn.py": (
        "import os\n\nfrom pkg.fa3 import _load_fallback, _load_kernels\n\n\n"
        "def kernels():\n"
        '    if os.environ.get("PKG_A_HUB_FA3") == "1":\n'
        "        return _load_kernels()\n"
        '    if os.environ.get("PKG_B_FALLBACK") == "1":\n'
        "        return _load_fallback()\n"
        "    return None\n"
    ),
}


def _judged(root: Path, files: dict[str, str], first: str, later: str) -> tuple[object, ...]:
    """``later``'s role from a whole scan, and its evidence judged alone, after ``first``,
    and before it, each by a reach of its own."""
    write_tree(root, files)
    result = scan([root], root=root, jobs=1)
    tree = Tree({rel: (root / rel, module) for rel, module in result.modules})
    knobs = {knob.name: knob for knob in result.knobs}
    assert {first, later} <= knobs.keys()

    def evidence(*order: str) -> Evidence | None:
        code = CodeReach(tree, result.knobs)
        found = {name: code.evidence(knobs[name]) for name in order}
        return found[later]

    return (
        knobs[later].role,
        evidence(later),
        evidence(first, later),
        evidence(later, first),
    )


def test_a_call_beyond_the_depth_is_not_reached_after_a_shallower_walk(tmp_path: Path) -> None:
    role, alone, after, before = _judged(tmp_path, DEEP, "PKG_CACHE_CROSSCHECK", "PKG_PADDING")
    assert alone is None
    assert after == alone and before == alone
    assert role is Role.UNKNOWN


def test_a_function_in_a_cycle_reaches_what_it_calls_back_into(tmp_path: Path) -> None:
    role, alone, after, before = _judged(tmp_path, CYCLE, "PKG_A_HUB_FA3", "PKG_B_FALLBACK")
    assert isinstance(alone, Evidence)
    assert alone.role is Role.KERNEL
    assert alone.reason == (
        "PKG_B_FALLBACK='1' runs the branch of `os.environ.get('PKG_B_FALLBACK') == '1'` at "
        "pkg/attn.py:9, which reaches calls _load_fallback (pkg/fa3.py:11) -> calls "
        "flash_attn_with_kvcache (pkg/fa3.py:15) -> calls _load_kernels (pkg/fa3.py:4) -> "
        "Hugging Face kernels (compiled kernels loaded from the Hub) (kernels.get_kernel) at "
        "pkg/fa3.py:5; unset, it does not"
    )
    assert after == alone and before == alone
    assert role is Role.KERNEL


@pytest.mark.parametrize(
    ("span", "depth", "held"),
    [(0, 7, True), (2, 5, True), (2, 6, False), (4, 0, True), (4, 3, True), (4, 4, False)],
)
def test_a_walk_without_a_cut_holds_where_its_calls_stay_within_the_depth(
    span: int, depth: int, held: bool
) -> None:
    walked: Walked[str] = Walked(8)
    walked.start(3)
    walked.met(3 + span)
    walked.end("f", 3, "found")
    assert (walked.get("f", depth) == "found") is held


def test_a_walk_that_met_a_cut_holds_at_its_own_depth_alone() -> None:
    walked: Walked[str] = Walked(8)
    walked.start(2)
    walked.start(3)  # a call it makes, which meets the cut
    walked.met(8)
    walked.end("g", 3, "inner")
    walked.end("f", 2, "outer")
    assert (walked.get("f", 2), walked.get("f", 1), walked.get("f", 3)) == ("outer", None, None)
    assert (walked.get("g", 3), walked.get("g", 0)) == ("inner", None)
    assert (walked.any("f"), walked.any("g"), walked.any("h")) == ("outer", "inner", None)
