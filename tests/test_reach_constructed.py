"""An object made with a constant that decides the tests its methods make of it.

ROCm/TransformerEngine ac80527 transformer_engine/paddle/layer/attention.py:459-555: with
NVTE_FUSED_ATTN unset, ``DotProductAttention.forward`` runs ``_te_forward`` (FusedAttnFunc, a
paddle PyLayer whose forward calls the fused-attention extension, :309, cpp_extensions.py:996);
with "0" it binds ``backend = "paddle"`` and makes ``FusedScaleMaskSoftmax(..., backend=backend)``
(:546-549), whose ``forward`` runs the fused softmax kernels only where ``self.backend ==
"transformer_engine"`` (paddle/layer/softmax.py:140-178). Walked as the class's whole, that
construction reached the fused softmax and made "0" the kernel side: a disable switch whose
feature is off. The object's constant decides its tests (scanner.reach.constructed).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from scanner import Polarity, Role
from scanner.model import Outcome
from scanner.reach.constructed import decided, fixed_attributes
from scanner.reach.modules import Tree
from tests.conftest import write_tree
from tests.scanned import role_facts, scanned_knob

SOFTMAX = """\
import paddle

from transformer_engine.paddle.cpp_extensions import scaled_softmax_forward


class ScaledSoftmax(paddle.autograd.PyLayer):
    @staticmethod
    def forward(ctx, inputs, scale):
        return scaled_softmax_forward(inputs, scale)


class FusedScaleMaskSoftmax(paddle.nn.Layer):
    def __init__(self, attn_mask_type, mask_func, backend="transformer_engine"):
        super().__init__()
        self.attn_mask_type = attn_mask_type
        self.mask_func = mask_func
        self.backend = backend

    def forward(self, inp, mask, scale=None):
        if self.backend == "transformer_engine" and not self.is_kernel_available(*inp.shape):
            self.backend = "paddle"
        if self.backend == "transformer_engine":
            return self._te_forward(inp, mask, scale)
        if self.backend == "paddle":
            return self._pd_forward(inp, mask, scale)
        raise AttributeError(f"Backend {self.backend} is not supported.")

    def is_kernel_available(self, b, h, s_q, s_kv):
        return s_kv <= 4096

    def _te_forward(self, inp, mask, scale=None):
        return ScaledSoftmax.apply(inp, 1.0 if scale is None else scale)

    def _pd_forward(self, inp, mask, scale=None):
        return paddle.nn.functional.softmax(self.mask_func(inp, mask), axis=-1)
"""
ATTENTION = """\
import os

import paddle

from transformer_engine import transformer_engine_paddle as tex

from .softmax import FusedScaleMaskSoftmax


def attention_mask_func(scores, mask):
    return scores


class FusedAttnFunc(paddle.autograd.PyLayer):
    @staticmethod
    def forward(ctx, q, k, v):
        return tex.te_fused_attn_fwd(q, k, v)


class DotProductAttention(paddle.nn.Layer):
    def __init__(self, attn_mask_type="causal", attention_type="self"):
        super().__init__()
        self.attn_mask_type = attn_mask_type
        self.attention_type = attention_type
        self.use_fused_attention = bool(int(os.getenv("NVTE_FUSED_ATTN", "1")))

    def forward(self, q, k, v, mask=None):
        is_backend_avail = q.shape[-1] <= 128
        if is_backend_avail and self.use_fused_attention:
            return self._te_forward(q, k, v)
        backend = "paddle"
        self.scale_mask_softmax = FusedScaleMaskSoftmax(
            self.attn_mask_type, attention_mask_func, {argument}
        )
        return backend

    def _te_forward(self, q, k, v):
        if self.attention_type == "self":
            output = FusedAttnFunc.apply(q, k, v)
        elif self.attention_type == "cross":
            output = FusedAttnFunc.apply(q, k, v)
        else:
            raise ValueError("attention_type must be one of ['self', 'cross']")
        return output
"""
FUSED = (
    "unset, it runs the branch of `is_backend_avail and self.use_fused_attention` at "
    "pkg/attention.py:29, which reaches calls DotProductAttention._te_forward "
    "(pkg/attention.py:37) -> calls FusedAttnFunc.forward (pkg/attention.py:16) -> Transformer "
    "Engine (transformer_engine.transformer_engine_paddle.te_fused_attn_fwd) at "
    "pkg/attention.py:17; NVTE_FUSED_ATTN='0' leaves that branch, and what runs instead "
    "reaches no such kernel"
)


@pytest.mark.parametrize(
    "argument",
    ["backend=backend", 'backend="paddle"', '"paddle"'],
    ids=["a-local-bound-to-it", "a-keyword", "a-positional"],
)
def test_an_object_made_with_a_constant(tmp_path: Path, argument: str) -> None:
    files = {
        "pkg/__init__.py": "",
        "pkg/softmax.py": SOFTMAX,
        "pkg/attention.py": ATTENTION.replace("{argument}", argument),
    }
    knob = scanned_knob(tmp_path, files, "NVTE_FUSED_ATTN")
    assert role_facts(knob) == (Role.KERNEL, Polarity.ENABLE, "0", FUSED)


# How the object is made, in pkg/make.py (its call at line 8): what its attributes hold.
MAKE = """\
from .softmax import FusedScaleMaskSoftmax


def make(mask_type, mask_func, *rest):
    backend = "paddle"
    backend = {bound}
    layer = None
    return FusedScaleMaskSoftmax(mask_type, mask_func, {argument})
"""
PADDLE = {"backend": frozenset({"paddle"})}


@pytest.mark.parametrize(
    ("bound", "argument", "softmax", "fixed"),
    [
        ('"paddle"', "backend=backend", SOFTMAX, PADDLE),
        ("mask_type", 'backend="paddle"', SOFTMAX, PADDLE),
        ("mask_type", '"paddle"', SOFTMAX, PADDLE),
        (
            '"transformer_engine"',
            "backend",
            SOFTMAX,
            {"backend": frozenset({"transformer_engine", "paddle"})},
        ),
        ("mask_type", "backend=backend", SOFTMAX, {}),
        ('"paddle"', "*rest", SOFTMAX, {}),
        (
            '"paddle"',
            "backend=backend",
            SOFTMAX + "\n\ndef pick(layer, b):\n    layer.backend = b\n",
            {},
        ),
        (
            '"paddle"',
            "backend=backend",
            SOFTMAX + "\n    def use(self, backend):\n        self.backend = backend\n",
            {},
        ),
    ],
    ids=[
        "a-local-bound-last-to-it",
        "a-keyword",
        "a-positional",
        "a-fused-one-and-the-class-own",
        "a-local-bound-last-to-a-parameter",
        "starred",
        "bound-on-another-object",
        "bound-by-another-method",
    ],
)
def test_the_constants_an_object_holds(
    tmp_path: Path,
    bound: str,
    argument: str,
    softmax: str,
    fixed: dict[str, frozenset[Outcome]],
) -> None:
    files = {
        "pkg/__init__.py": "",
        "pkg/softmax.py": softmax,
        "pkg/make.py": MAKE.replace("{bound}", bound).replace("{argument}", argument),
    }
    write_tree(tmp_path, files)
    tree = Tree({rel: (tmp_path / rel, rel[:-3].replace("/", ".")) for rel in files})
    make, softmax_module = tree.module_at("pkg/make.py"), tree.module_at("pkg/softmax.py")
    assert make is not None and softmax_module is not None
    call = next(n for n in ast.walk(make.tree) if isinstance(n, ast.Call) and n.lineno == 8)
    assert (call.lineno, call.col_offset + 1) == (8, 12)
    cls = softmax_module.definitions["FusedScaleMaskSoftmax"]
    assert isinstance(cls, ast.ClassDef)
    found = fixed_attributes(make, call, softmax_module, cls, "FusedScaleMaskSoftmax")
    assert found == fixed


# The tests of ``FusedScaleMaskSoftmax.forward`` (pkg/softmax.py:20, :22, :24), as the
# attributes decide them.
@pytest.mark.parametrize(
    ("held", "answers"),
    [
        (frozenset({"paddle"}), [False, False, True]),
        (frozenset({"transformer_engine"}), [None, True, False]),
        (frozenset({"paddle", "transformer_engine"}), [None, None, None]),
    ],
    ids=["paddle", "fused", "either"],
)
def test_the_tests_an_object_s_constants_decide(
    held: frozenset[Outcome], answers: list[bool | None]
) -> None:
    cls = next(
        n
        for n in ast.walk(ast.parse(SOFTMAX))
        if isinstance(n, ast.ClassDef) and n.name == "FusedScaleMaskSoftmax"
    )
    forward = next(n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == "forward")
    tests = [(s.lineno, s.test) for s in forward.body if isinstance(s, ast.If)]
    assert [line for line, _ in tests] == [20, 22, 24]
    assert [decided(test, {"backend": held}) for _, test in tests] == answers
