"""The catalogue's settings that the scanner knows by name: a knob under one of them has the
role ``stack``. Generated from knobregistry/catalogue/data/*.yaml (the settings with a
``scanner:`` block, in its order) by `make catalogue-table`: do not edit."""

from __future__ import annotations

from typing import Final

# (variable, deterministic value, the libraries that read it, what that value gives)
SETTINGS: Final[tuple[tuple[str, str, str, str], ...]] = (
    (
        "CUBLAS_WORKSPACE_CONFIG",
        ":4096:8",
        "cuBLAS",
        (
            "a fixed workspace per stream, which torch.use_deterministic_algorithms requires on "
            "CUDA 10.2 and later"
        ),
    ),
    (
        "NCCL_ALGO",
        "Ring",
        "NCCL / RCCL",
        "the ring algorithm for every collective, whose reduction order is fixed",
    ),
    (
        "NVTE_ALLOW_NONDETERMINISTIC_ALGO",
        "0",
        "Transformer Engine",
        "only Transformer Engine's deterministic kernels",
    ),
    (
        "ROCBLAS_DEFAULT_ATOMICS_MODE",
        "0",
        "rocBLAS",
        "no atomic (non-deterministic) reductions in GEMMs",
    ),
    (
        "TORCH_COMPILE_DISABLE",
        "1",
        "torch",
        "torch.compile off: no generated Triton kernels and no autotuning",
    ),
    (
        "PRIMUS_TURBO_AUTO_TUNE",
        "0",
        "Primus-Turbo",
        "no kernel autotuning, so the kernel choice is the same in every run",
    ),
)

# The flags of variables that hold flags (XLA_FLAGS), every catalogued one: (flag, the
# variable, its deterministic value, what the flag controls)
FLAGS: Final[tuple[tuple[str, str, str, str], ...]] = (
    (
        "--xla_gpu_deterministic_ops",
        "XLA_FLAGS",
        "true",
        (
            "XLA's own deterministic mode on GPU, which its help says guarantees run-to-run "
            "determinism"
        ),
    ),
    (
        "--xla_gpu_autotune_level",
        "XLA_FLAGS",
        "0",
        (
            "GEMM, convolution and fusion configurations chosen by timing them at compile time (0, "
            "none timed)"
        ),
    ),
    (
        "--xla_gpu_enable_triton_gemm",
        "XLA_FLAGS",
        "false",
        "XLA's own Triton GEMM fusions, whose tiling the autotuner picks",
    ),
    (
        "--xla_gpu_enable_command_buffer",
        "XLA_FLAGS",
        "",
        "the commands recorded into command buffers (CUDA graphs); empty, none",
    ),
)
