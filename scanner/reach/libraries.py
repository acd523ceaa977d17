"""Kernel libraries whose entry points are fused or tuned kernels, as data with a source.

A call into one of these packages from a gate's branch is evidence that the branch runs
a kernel of the library, not plain PyTorch (their functions are fused CUDA, HIP or Triton
kernels, which is what each source documents). A module of the scanned tree is never
taken for the library: a tree that is the library itself is read as code, but for a module
its code loads by path at run time, which no one can read here (scanner.reach.library_loads).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final


@dataclass(frozen=True, slots=True)
class Library:
    """A package of fused kernels, by the import prefix its entry points have."""

    prefix: str
    name: str
    source: str


LIBRARIES: Final[tuple[Library, ...]] = (
    Library(
        "transformer_engine", "Transformer Engine", "https://github.com/NVIDIA/TransformerEngine"
    ),
    Library("apex", "NVIDIA Apex", "https://github.com/NVIDIA/apex"),
    Library("flash_attn", "FlashAttention", "https://github.com/Dao-AILab/flash-attention"),
    # FlashAttention 3 (Hopper): its Python interface and the CUDA extension it wraps
    # (flash_attn_3_cuda, renamed flash_attn_3_gpu), imported as top-level modules.
    Library(
        "flash_attn_interface",
        "FlashAttention 3",
        "https://github.com/Dao-AILab/flash-attention/blob/main/hopper/flash_attn_interface.py",
    ),
    Library("flashinfer", "FlashInfer", "https://github.com/flashinfer-ai/flashinfer"),
    Library("flash_mla", "FlashMLA", "https://github.com/deepseek-ai/FlashMLA"),
    Library("deep_gemm", "DeepGEMM", "https://github.com/deepseek-ai/DeepGEMM"),
    Library("deep_ep", "DeepEP", "https://github.com/deepseek-ai/DeepEP"),
    Library("liger_kernel", "Liger-Kernel", "https://github.com/linkedin/Liger-Kernel"),
    Library("aiter", "AITER", "https://github.com/ROCm/aiter"),
    Library("xformers", "xFormers", "https://github.com/facebookresearch/xformers"),
    Library(
        "sgl_kernel", "sgl-kernel", "https://github.com/sgl-project/sglang/tree/main/sgl-kernel"
    ),
    Library(
        "sglang.jit_kernel",
        "SGLang's JIT kernels",
        "https://github.com/sgl-project/sglang/tree/main/python/sglang/jit_kernel",
    ),
    Library("primus_turbo", "Primus-Turbo", "https://github.com/AMD-AGI/Primus-Turbo"),
    Library("fla", "flash-linear-attention", "https://github.com/fla-org/flash-linear-attention"),
    Library("mamba_ssm", "Mamba's fused kernels", "https://github.com/state-spaces/mamba"),
    Library("causal_conv1d", "causal-conv1d", "https://github.com/Dao-AILab/causal-conv1d"),
    # its CUDA extension, imported as a top-level module by its own interface
    Library(
        "causal_conv1d_cuda",
        "causal-conv1d",
        "https://github.com/Dao-AILab/causal-conv1d/blob/main/causal_conv1d/causal_conv1d_interface.py",
    ),
    Library("grouped_gemm", "grouped_gemm", "https://github.com/fanshiqing/grouped_gemm"),
    Library(
        "triton_kernels",
        "triton_kernels",
        "https://github.com/triton-lang/triton/tree/main/python/triton_kernels",
    ),
    Library("tilelang", "TileLang", "https://github.com/tile-ai/tilelang"),
    Library("flydsl", "FlyDSL", "https://github.com/ROCm/FlyDSL"),
    # Ascend's fused operators (``torch_npu.npu_rms_norm``, ``npu_geglu``, ...).
    Library("torch_npu", "torch_npu (Ascend fused operators)", "https://github.com/Ascend/pytorch"),
    Library(
        "transformer_engine_torch",
        "Transformer Engine's PyTorch extension",
        "https://github.com/NVIDIA/TransformerEngine/tree/main/transformer_engine/pytorch/csrc",
    ),
    Library("cutlass", "CUTLASS's CuTe DSL", "https://github.com/NVIDIA/cutlass"),
    Library("quack", "QuACK (CuTe DSL kernels)", "https://github.com/Dao-AILab/quack"),
    Library(
        "kernels",
        "Hugging Face kernels (compiled kernels loaded from the Hub)",
        "https://github.com/huggingface/kernels",
    ),
    # transformers' doors to those kernels: each loads a compiled kernel from the Hub
    # (``kernels.get_kernel`` underneath) or swaps a model's layers for Hub kernels; the rest
    # of the module (``is_kernel``, ``allow_all_hub_kernels``, its mappings) runs none
    # (transformers 5.25.0 integrations/hub_kernels.py:356-541).
    *(
        Library(
            f"transformers.integrations.hub_kernels.{entry}",
            "Hugging Face kernels, through transformers",
            "https://github.com/huggingface/transformers/blob/v5.25.0/src/transformers/"
            "integrations/hub_kernels.py",
        )
        for entry in (
            "get_kernel",
            "lazy_load_kernel",
            "load_and_register_attn_kernel",
            "kernelize",
        )
    ),
    Library(
        "vllm._custom_ops",
        "vLLM's custom ops",
        "https://github.com/vllm-project/vllm/blob/main/vllm/_custom_ops.py",
    ),
    Library(
        "megatron.core.fusions",
        "Megatron Core's fused kernels",
        "https://github.com/NVIDIA/Megatron-LM/tree/main/megatron/core/fusions",
    ),
    # Apex's CUDA extensions, imported as top-level modules by Megatron and its forks.
    Library(
        "fused_weight_gradient_mlp_cuda",
        "Apex's fused weight-gradient GEMM",
        "https://github.com/NVIDIA/apex/tree/master/csrc/megatron",
    ),
    Library(
        "fused_layer_norm_cuda",
        "Apex's fused layer norm",
        "https://github.com/NVIDIA/apex/tree/master/csrc",
    ),
    Library(
        "scaled_masked_softmax_cuda",
        "Apex's fused masked softmax",
        "https://github.com/NVIDIA/apex/tree/master/csrc/megatron",
    ),
    Library(
        "scaled_upper_triang_masked_softmax_cuda",
        "Apex's fused causal softmax",
        "https://github.com/NVIDIA/apex/tree/master/csrc/megatron",
    ),
    # PyTorch's symmetric memory: a branch that takes a workspace or a handle of it runs
    # collectives of its own on it (peer copies, signal-pad and multimem kernels, the fused
    # all-gather/matmul ops) in place of NCCL's (xformers ca6d2aa ops/
    # sequence_parallel_fused_ops.py:120-146 against :593-605).
    Library(
        "torch.distributed._symmetric_memory",
        "PyTorch symmetric memory",
        "https://docs.pytorch.org/docs/stable/symmetric_memory.html",
    ),
    Library(
        "amp_C", "Apex's multi-tensor kernels", "https://github.com/NVIDIA/apex/tree/master/csrc"
    ),
)
_BY_PREFIX: Final[Mapping[str, Library]] = {library.prefix: library for library in LIBRARIES}


# Parts of a library that run no kernel: its logger, its private helpers (``_collect_
# metadata``), what says whether it is there, its runtime loader (``cutlass.cute.runtime.
# find_runtime_libraries``, what an availability probe calls), its report of the machine's
# software (``torch_npu.utils.collect_env.get_cann_version``, the CANN version huggingface/
# kernels 8ac69fc kernels/src/kernels/backends.py:242-245 reads); torch_npu's device runtime
# (``torch_npu.npu``), profiler and process helpers, and its casts of a tensor's format or
# dtype and its prefetch, which compute nothing (https://www.hiascend.com/document/detail/
# zh/Pytorch/600/apiref/apilist/ptaoplist_000139.html). Symmetric memory's switch for a
# process group and its questions of what the build has, which allocate and compute nothing
# (https://docs.pytorch.org/docs/stable/symmetric_memory.html).
_NOT_ENTRY: Final = frozenset(
    {
        *("logger", "logging", "log", "get_logger", "version", "runtime", "collect_env"),
        *("npu", "profiler", "multiprocessing"),
        *("npu_format_cast", "npu_format_cast_", "npu_dtype_cast", "npu_prefetch"),
        *("enable_symm_mem_for_group", "is_symm_mem_enabled_for_group", "is_nvshmem_available"),
    }
)


def library_of(dotted: str) -> str | None:
    """The name of the kernel library ``dotted`` (a resolved call) belongs to, or None;
    None too for a part of it that runs no kernel (a logger, a private helper)."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        found = _BY_PREFIX.get(".".join(parts[:cut]))
        if found is not None:
            inside = parts[cut:]
            if any(p.startswith("_") or p in _NOT_ENTRY for p in inside):
                return None
            return found.name
    return None
