"""Roles from a call into a kernel library the tree does not hold (scanner.reach.libraries).

Each case is a small tree on disk in the shape of the real code it stands for (the file it
was read from is named above it), scanned; the role, the knob's polarity and off value, and
the whole evidence chain are checked."""

from __future__ import annotations

from pathlib import Path

import pytest

from scanner import Polarity, Role
from tests.scanned import role_facts, scanned_knob

# facebookresearch/xformers ca6d2aa, xformers/ops/sequence_parallel_fused_ops.py:355-371
# (_lazy_init: None under the switch, else the fused object, cached and returned), :100-146
# (its method takes a workspace of PyTorch's symmetric memory and signals the peers on it),
# :593-615 (the caller: `obj is None` all-gathers with NCCL, else the fused ring runs).
SYMMETRIC_MEMORY = {
    "pkg/__init__.py": "",
    "pkg/fused.py": (
        "import os\n\n"
        "import torch.distributed as dist\n"
        "from torch.distributed._symmetric_memory import get_symm_mem_workspace\n\n\n"
        "class _Fused:\n"
        "    def __init__(self, group):\n"
        "        self.group = group\n\n"
        "    def allgather_and_linear(self, x, matmul):\n"
        "        symm_mem = get_symm_mem_workspace(self.group.group_name, x.numel())\n"
        "        symm_mem.put_signal(0, 0)\n"
        "        matmul(symm_mem.get_buffer(0, x.shape, x.dtype))\n\n\n"
        "CACHE = {}\n\n\n"
        "def _lazy_init(group):\n"
        "    try:\n"
        "        obj = CACHE[id(group)]\n"
        "    except KeyError:\n"
        '        if int(os.environ.get("X_DISABLE_FUSED", "0")):\n'
        "            obj = None\n"
        "        elif group.size() == 1:\n"
        "            obj = None\n"
        "        else:\n"
        "            obj = _Fused(group)\n"
        "        CACHE[id(group)] = obj\n"
        "    return obj\n\n\n"
        "def allgather_and_linear(x, matmul, group):\n"
        "    obj = _lazy_init(group)\n"
        "    if obj is None:\n"
        "        gathered = x.new_empty((group.size(), *x.shape))\n"
        "        dist.all_gather_into_tensor(gathered, x, group=group)\n"
        "        matmul(gathered)\n"
        "    else:\n"
        "        obj.allgather_and_linear(x, matmul)\n"
    ),
}

# huggingface/text-generation-inference db931fc, server/custom_kernels/setup.py:6-19 (the
# tree builds its CUDA kernels into custom_kernels.fused_bloom_attention_cuda) and
# server/text_generation_server/models/custom_modeling/bloom_modeling.py:42-52, :380-400
# (imported under the switch, its forward called where the flag holds, else plain torch).
EXTENSION = {
    "ck/setup.py": (
        "from setuptools import setup\n"
        "from torch.utils.cpp_extension import BuildExtension, CUDAExtension\n\n"
        "setup(\n"
        '    name="ck",\n'
        "    ext_modules=[\n"
        '        CUDAExtension(name="ck.fused_attention_cuda", sources=["ck/attn.cu"]),\n'
        "    ],\n"
        '    cmdclass={"build_ext": BuildExtension},\n'
        ")\n"
    ),
    "ck/ck/attn.cu": "",
    "pkg/__init__.py": "",
    "pkg/model.py": (
        "import os\n\nimport torch\n\n"
        "ENABLED = False\n"
        "if torch.cuda.is_available() and not "
        'os.environ.get("X_DISABLE_CUSTOM", "False") == "True":\n'
        "    try:\n"
        "        from ck import fused_attention_cuda\n\n"
        "        ENABLED = True\n"
        "    except ImportError:\n"
        "        pass\n\n\n"
        "class Attention(torch.nn.Module):\n"
        "    def forward(self, q, k, v):\n"
        "        if ENABLED and q.shape[-1] < 4096:\n"
        "            return fused_attention_cuda.forward(q, k, v)\n"
        "        return torch.softmax(q @ k.transpose(-1, -2), -1) @ v\n"
    ),
}


# pytorch/helion ef091f4, examples/distributed/allreduce_bias_rmsnorm.py:29-38 (a
# @helion.jit kernel), :95-110 (its wrapper), :235-290 (FlashInfer's fused all-reduce, its
# module imported inside the function at :248) and :332-343 (each substring test ADDS one
# implementation to the benchmarks: "flashinfer" keeps FlashInfer's kernel alone).
HELION_FILTER = {
    "pkg/__init__.py": "",
    "pkg/bench.py": (
        "import os\n\n"
        "import helion\n"
        "import torch.distributed._symmetric_memory as symm_mem\n\n\n"
        "@helion.jit(config=helion.Config(block_sizes=[8]), static_shapes=True)\n"
        "def one_shot_kernel(buf, x):\n"
        "    return x\n\n\n"
        "def helion_one_shot(buf, x):\n"
        '    symm_mem_hdl = symm_mem.rendezvous(buf, "world")\n'
        "    return one_shot_kernel(buf, x)\n\n\n"
        "def flashinfer_fused(buf, x):\n"
        "    import flashinfer.comm as flashinfer_comm\n\n"
        "    flashinfer_comm.allreduce_fusion(input=x, norm_out=buf)\n"
        "    return buf\n\n\n"
        "_flashinfer_available = False\n\n\n"
        "def test(buf, x):\n"
        "    benchmarks = {}\n"
        '    KERNEL_FILTER = os.getenv("KERNEL_FILTER")\n'
        '    if _flashinfer_available and (not KERNEL_FILTER or "flashinfer" in KERNEL_FILTER):\n'
        '        benchmarks["flashinfer"] = flashinfer_fused\n'
        '    if not KERNEL_FILTER or "one_shot" in KERNEL_FILTER:\n'
        '        benchmarks["helion_one_shot"] = helion_one_shot\n'
        '    if not KERNEL_FILTER or "two_shot" in KERNEL_FILTER:\n'
        '        benchmarks["helion_two_shot"] = helion_one_shot\n'
        "    assert len(benchmarks) > 0\n"
        "    for fn in benchmarks.values():\n"
        "        fn(buf, x)\n"
    ),
}

# The same kernel, where a switch picks it or plain torch (sglang's *_helion.py kernels,
# torchtitan overrides/helion_rope.py): a @helion.kernel function is a Triton kernel.
HELION_KERNEL = {
    "pkg/__init__.py": "",
    "pkg/norm.py": (
        "import os\n\n"
        "import helion\n"
        "import torch\n\n\n"
        "@helion.kernel(static_shapes=True)\n"
        "def rms_norm_kernel(x):\n"
        "    return x\n\n\n"
        "def rms_norm(x):\n"
        '    if os.environ.get("X_USE_HELION", "1") == "1":\n'
        "        return rms_norm_kernel(x)\n"
        "    return torch.nn.functional.rms_norm(x, x.shape[-1:])\n"
    ),
}

CASES = [
    (
        "a-workspace-of-symmetric-memory-is-a-fused-collective",
        SYMMETRIC_MEMORY,
        "X_DISABLE_FUSED",
        Role.KERNEL,
        Polarity.DISABLE,
        "0",
        "unset, it runs the branch of `not (obj is None)` at pkg/fused.py:36, which reaches "
        "calls _Fused.allgather_and_linear (pkg/fused.py:11) -> PyTorch symmetric memory "
        "(torch.distributed._symmetric_memory.get_symm_mem_workspace) at pkg/fused.py:12; "
        "X_DISABLE_FUSED='1' leaves that branch, and what runs instead reaches no such kernel",
    ),
    (
        "a-function-of-a-cuda-extension-the-tree-builds",
        EXTENSION,
        "X_DISABLE_CUSTOM",
        Role.KERNEL,
        Polarity.DISABLE,
        "False",
        "unset, it runs the branch of `ENABLED and q.shape[-1] < 4096` at pkg/model.py:17, "
        "which reaches ck.fused_attention_cuda.forward, of the CUDA extension "
        "ck.fused_attention_cuda the tree builds (ck/setup.py:7) at pkg/model.py:18; "
        "X_DISABLE_CUSTOM='True' leaves that branch, and what runs instead reaches no such "
        "kernel",
    ),
    (
        # the same tree, where the extension is C++ for the CPU (a CppExtension): no kernel
        "a-cpp-extension-is-no-cuda-kernel",
        {
            **EXTENSION,
            "ck/setup.py": EXTENSION["ck/setup.py"].replace("CUDAExtension", "CppExtension"),
        },
        "X_DISABLE_CUSTOM",
        Role.UNKNOWN,
        Polarity.DISABLE,
        "False",
        "nothing in its name, what it feeds or the functions that read it says what it controls",
    ),
    (
        "a-helion-kernel-is-a-triton-kernel",
        HELION_KERNEL,
        "X_USE_HELION",
        Role.KERNEL,
        Polarity.ENABLE,
        "0",
        "unset, it runs the branch of `os.environ.get('X_USE_HELION', '1') == '1'` at "
        "pkg/norm.py:13, which reaches calls rms_norm_kernel (pkg/norm.py:8) -> @helion.kernel "
        "rms_norm_kernel at pkg/norm.py:8; X_USE_HELION='0' leaves that branch, and what runs "
        "instead reaches no such kernel",
    ),
    (
        # "flashinfer" keeps FlashInfer's kernel and drops Helion's: kernel against kernel
        "a-filter-value-that-keeps-a-library-kernel-is-no-switch",
        HELION_FILTER,
        "KERNEL_FILTER",
        Role.VALUE,
        Polarity.ENABLE,
        None,
        "not a switch: the code uses its value",
    ),
]


@pytest.mark.parametrize(
    ("files", "name", "role", "polarity", "off", "reason"),
    [c[1:] for c in CASES],
    ids=[c[0] for c in CASES],
)
def test_role_from_a_library_call(
    tmp_path: Path,
    files: dict[str, str],
    name: str,
    role: Role,
    polarity: Polarity,
    off: str | None,
    reason: str,
) -> None:
    knob = scanned_knob(tmp_path, files, name)
    assert role_facts(knob) == (role, polarity, off, reason)
