"""A value a config file stores in a nested field, splatted by the config class into the
constructor it builds, and handed from there to a dispatch that returns one implementation:
followed to the dispatch's tests.

Each tree is a small copy, on disk, of the real code named above it (InternLM/xtuner
b934f46); it is scanned and the role, polarity, off value and evidence are checked."""

from __future__ import annotations

from pathlib import Path

import pytest

from scanner import Polarity, Role
from tests.scanned import bitwise_exports, role_facts, scanned_knob

# xtuner ops/sparse_mla/__init__.py:10-21 (the dispatch), pytorch.py:10-16 (the plain
# path), tilelang.py:15-21 and tilelang_sparse_mla_fwd.py:7-14 (a TileLang kernel).
OPS = {
    "pkg/__init__.py": "",
    "pkg/ops/__init__.py": (
        "from .pytorch import torch_sparse_mla\n\n\n"
        "def get_sparse_mla(backend):\n"
        '    if backend == "torch":\n'
        "        return torch_sparse_mla\n"
        '    if backend == "tilelang":\n'
        "        from .tilelang import tilelang_sparse_mla\n\n"
        "        return tilelang_sparse_mla\n"
        '    raise ValueError(f"Unsupported SparseMLA backend: {backend}")\n'
    ),
    "pkg/ops/pytorch.py": (
        "import torch\n\n\n"
        "def torch_sparse_mla(q, kv, indices, scaling, value_dim=None):\n"
        "    return torch.softmax(q @ kv.transpose(-1, -2) * scaling, dim=-1) @ kv\n"
    ),
    "pkg/ops/tilelang.py": (
        "from .tilelang_fwd import sparse_mla_fwd\n\n\n"
        "def tilelang_sparse_mla(q, kv, indices, scaling, value_dim=None):\n"
        "    return sparse_mla_fwd(q, kv)\n"
    ),
    "pkg/ops/tilelang_fwd.py": (
        "import tilelang\n\n\n"
        "@tilelang.jit(out_idx=[-1])\n"
        "def sparse_mla_fwd(q, kv):\n"
        "    return q\n"
    ),
}

# xtuner module/attention/dsa_mla.py:170-243: the config class declares the field and
# splats its fields into the module it builds, whose constructor hands it to the dispatch.
ATTENTION = (
    "from pydantic import BaseModel\n\n"
    "from pkg.ops import get_sparse_mla\n\n\n"
    "class DSAMLAConfig(BaseModel):\n"
    "    num_heads: int = 8\n"
    '    sparse_mla_backend: str = "torch"\n\n'
    "    def build(self, hidden_size):\n"
    "        return DSAMultiLatentAttention(**SPLAT, hidden_size=hidden_size)\n\n\n"
    "class DSAMultiLatentAttention:\n"
    '    def __init__(self, *, num_heads, sparse_mla_backend="torch", hidden_size):\n'
    "        self.sparse_mla_backend = sparse_mla_backend\n"
    "        self.sparse_mla_func = get_sparse_mla(sparse_mla_backend)\n"
)

# xtuner examples/v1/config/sft_glm5p2.py:49, :55-56: the field set on the config the
# file got from a function, under a test of the config's class.
CONFIG = (
    "import os\n\n"
    "from pkg.models import get_model_config\n\n"
    "model_cfg = get_model_config()\n"
    'if hasattr(model_cfg.attention, "sparse_mla_backend"):\n'
    '    model_cfg.attention.sparse_mla_backend = os.environ.get("SPARSE_MLA_BACKEND", '
    '"tilelang")\n'
)
MODELS = (
    "from pkg.attention import DSAMLAConfig\n\n\n"
    "class ModelConfig:\n"
    "    def __init__(self):\n"
    "        self.attention = DSAMLAConfig()\n\n\n"
    "def get_model_config():\n"
    "    return ModelConfig()\n"
)


def _tree(splat: str, ops: dict[str, str] | None = None) -> dict[str, str]:
    return {
        **(ops or OPS),
        "pkg/attention.py": ATTENTION.replace("SPLAT", splat),
        "pkg/models.py": MODELS,
        "examples/sft.py": CONFIG,
    }


REASON = (
    "unset, it runs the branch of `not (backend == 'torch')` at pkg/ops/__init__.py:5 (the "
    "field `sparse_mla_backend` of DSAMLAConfig, handed to DSAMultiLatentAttention with the "
    "others at pkg/attention.py:11), which reaches calls tilelang_sparse_mla "
    "(pkg/ops/tilelang.py:4) -> calls sparse_mla_fwd (pkg/ops/tilelang_fwd.py:5) -> TileLang "
    "(tilelang.jit) at pkg/ops/tilelang_fwd.py:4; SPARSE_MLA_BACKEND='torch' leaves that "
    "branch, "
    "and what runs instead reaches no such kernel; the name says MLA, what is computed, but "
    "at pkg/ops/__init__.py:4 get_sparse_mla returns one of torch_sparse_mla, "
    "tilelang_sparse_mla, functions with the same parameters (q, kv, indices, scaling, "
    "value_dim): the value chooses how it is computed, not what"
)


@pytest.mark.parametrize(
    "splat", ["self.model_dump()", "self.dict()", "vars(self)", "asdict(self)"]
)
def test_a_config_field_splatted_into_a_constructor_reaches_the_dispatch(
    tmp_path: Path, splat: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    knob = scanned_knob(tmp_path, _tree(splat), "SPARSE_MLA_BACKEND")
    site = knob.sites[0]
    assert (site.path, site.line, site.column) == ("examples/sft.py", 7, 46)
    assert role_facts(knob) == (Role.KERNEL, Polarity.ENABLE, "torch", REASON)
    assert "export SPARSE_MLA_BACKEND='torch'" in bitwise_exports(tmp_path, monkeypatch)


def test_a_field_no_class_splats_is_a_value(tmp_path: Path) -> None:
    """The constructor called with the field spelled out, not splatted: the parameter is
    not the field's (only a field read is followed)."""
    knob = scanned_knob(tmp_path, _tree("{}"), "SPARSE_MLA_BACKEND")
    assert knob.role is Role.VALUE


def test_a_dispatch_of_functions_of_other_parameters_stays_a_persons(tmp_path: Path) -> None:
    """The plain function takes other parameters than the kernel's: nothing shows the two
    compute one operation, so the word MLA sends the choice to a person."""
    ops = dict(OPS)
    ops["pkg/ops/pytorch.py"] = (
        ops["pkg/ops/pytorch.py"]
        .replace("q, kv, indices, scaling, value_dim=None", "q, kv, indices")
        .replace(" * scaling", "")
    )
    knob = scanned_knob(tmp_path, _tree("self.model_dump()", ops), "SPARSE_MLA_BACKEND")
    assert knob.role is Role.UNKNOWN
    assert knob.role_reason is not None
    assert knob.role_reason.endswith(
        "but the name says MLA, what is computed, so the other value may change the result "
        "itself: a person must say"
    )
