"""A variable's value handed to a constructor of the tree's class, kept as a field whose name
many classes share (``enabled``), and tested where the object is known to be that class's:
followed to the test, and no further than that class's instances.

Each tree is a small copy, on disk, of the real code named above it (predibase/lorax
a7394ba); it is scanned and the role, polarity, off value and evidence are checked."""

from __future__ import annotations

from pathlib import Path

import pytest

from scanner import Polarity, Role
from tests.scanned import KERNEL, bitwise_exports, role_facts, scanned_knob

# server/lorax_server/utils/punica.py:30 (the module-level read), :399-419 (``__init__``
# keeps ``enabled``), :689 (add_lora, down to the Triton kernels).
PUNICA = """\
import os

from pkg.kernels import fused_rms_norm

TRITON_DISABLED = bool(int(os.environ.get("PKG_TRITON_DISABLED", "0")))


class Wrapper:
    def __init__(self, max_batches: int, device: str, enabled: bool):
        self.max_batch_size = max_batches
        self.enabled = enabled

    def add_lora(self, y, x):
        return fused_rms_norm(x)
"""

# adapters/weights.py:108-118: a dataclass field annotated with the class, imported only
# for type checking.
WEIGHTS = """\
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pkg.punica import Wrapper


@dataclass
class BatchData:
    prefill: bool
    wrapper: "Wrapper"
"""

# utils/layers.py:70-104, :160-180: the parameter annotated with the dataclass; the field's
# test picks the Triton path or plain torch.
LAYERS = """\
from typing import TYPE_CHECKING

import torch

if TYPE_CHECKING:
    from pkg.weights import BatchData


class LoraLinear:
    def forward(self, result, x, data: "BatchData"):
        if (
            data.wrapper is not None
            and data.wrapper.enabled
            and x.shape[0] <= data.wrapper.max_batch_size
        ):
            data.wrapper.add_lora(result, x)
        else:
            result = result + torch.matmul(x, x)
        return result
"""

# models/flash_causal_lm.py:1299-1306: the read handed to the constructor as a keyword,
# beside another condition.
KEYWORD = """\
from pkg.punica import TRITON_DISABLED, Wrapper


class Model:
    def __init__(self, dynamic: bool):
        self.dynamic = dynamic
        self.wrapper = None

    def warmup(self):
        self.wrapper = Wrapper(
            max_batches=256,
            device="cuda",
            enabled=(not self.dynamic and not TRITON_DISABLED),
        )
"""

# The same value handed at its position.
POSITIONAL = KEYWORD.replace(
    '            max_batches=256,\n            device="cuda",\n            enabled=(',
    '            256,\n            "cuda",\n            (',
)

TREE = {
    "pkg/__init__.py": "",
    "pkg/kernels.py": KERNEL,
    "pkg/punica.py": PUNICA,
    "pkg/weights.py": WEIGHTS,
    "pkg/layers.py": LAYERS,
}

HANDED = (
    "unset, it runs the branch of `data.wrapper is not None and data.wrapper.enabled and "
    "(x....` at pkg/layers.py:12 (the field `enabled` of Wrapper, handed in at "
    "pkg/model.py:10, kept at pkg/punica.py:11), which reaches calls Wrapper.add_lora "
    "(pkg/punica.py:13) -> calls fused_rms_norm (pkg/kernels.py:10) -> calls _fwd_kernel "
    "(pkg/kernels.py:6) -> @triton.jit _fwd_kernel at pkg/kernels.py:6; "
    "PKG_TRITON_DISABLED='1' leaves that branch, and what runs instead reaches no such kernel"
)


@pytest.mark.parametrize("model", [KEYWORD, POSITIONAL], ids=["keyword", "position"])
def test_a_value_kept_in_a_field_is_followed_to_the_tests_of_that_class(
    tmp_path: Path, model: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    knob = scanned_knob(tmp_path, {**TREE, "pkg/model.py": model}, "PKG_TRITON_DISABLED")
    assert role_facts(knob) == (Role.KERNEL, Polarity.DISABLE, "0", HANDED)
    assert knob.on_value == "1"
    assert "export PKG_TRITON_DISABLED='1'" in bitwise_exports(tmp_path, monkeypatch)


# The class's own methods (``self.enabled``) and a local bound to its constructor.
OWN = {
    "pkg/__init__.py": "",
    "pkg/kernels.py": KERNEL,
    "pkg/punica.py": PUNICA
    + """
    def apply(self, x):
        if self.enabled:
            return fused_rms_norm(x)
        return x * 2
""",
    "pkg/model.py": KEYWORD,
}

LOCAL = {
    "pkg/__init__.py": "",
    "pkg/kernels.py": KERNEL,
    "pkg/punica.py": PUNICA,
    "pkg/model.py": """\
import torch

from pkg.punica import TRITON_DISABLED, Wrapper


def run(x):
    wrapper = Wrapper(256, "cuda", enabled=not TRITON_DISABLED)
    if wrapper.enabled:
        return wrapper.add_lora(x, x)
    return torch.matmul(x, x)
""",
}


@pytest.mark.parametrize(
    ("files", "test", "via"),
    [
        (OWN, "`self.enabled` at pkg/punica.py:17", "pkg/model.py:10"),
        (LOCAL, "`wrapper.enabled` at pkg/model.py:8", "pkg/model.py:7"),
    ],
    ids=["self", "local"],
)
def test_a_field_is_read_on_self_and_on_a_local_bound_to_the_class(
    tmp_path: Path, files: dict[str, str], test: str, via: str
) -> None:
    knob = scanned_knob(tmp_path, files, "PKG_TRITON_DISABLED")
    assert knob.role is Role.KERNEL
    assert knob.role_reason is not None
    assert knob.role_reason.startswith(
        f"unset, it runs the branch of {test} (the field `enabled` of Wrapper, handed in at "
        f"{via}, kept at pkg/punica.py:11), which reaches "
    )
    assert knob.off_value == "0" and knob.on_value == "1"


# Another class whose field has the same short name, tested before a Triton kernel: its
# objects are not the Wrapper the value was handed to, so nothing is said of the knob.
UNRELATED = {
    "pkg/__init__.py": "",
    "pkg/kernels.py": KERNEL,
    "pkg/punica.py": PUNICA,
    "pkg/model.py": KEYWORD,
    "pkg/other.py": """\
import torch

from pkg.kernels import fused_rms_norm


class Sampler:
    def __init__(self, enabled: bool):
        self.enabled = enabled


def sample(x, sampler: Sampler, loose):
    if sampler.enabled:
        return fused_rms_norm(x)
    if loose.enabled:
        return fused_rms_norm(x)
    return torch.matmul(x, x)
""",
}


def test_the_same_field_of_another_class_or_an_unknown_object_is_not_followed(
    tmp_path: Path,
) -> None:
    knob = scanned_knob(tmp_path, UNRELATED, "PKG_TRITON_DISABLED")
    assert knob.role is Role.UNKNOWN
    assert "pkg/other.py" not in (knob.role_reason or "")
