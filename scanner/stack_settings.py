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
