# unsloth 2026.10.9 unsloth/_gpu_init.py:156-170, 271-276
# The number of Inductor compile worker threads: the same kernels, compiled by 1 or N workers.
import os

import torch

_nvd = os.environ.get("NVIDIA_VISIBLE_DEVICES", "").strip().lower()
_cgroup_pinned = _nvd not in ("", "all", "none", "void")
if (
    os.environ.get("UNSLOTH_FORCE_SINGLE_COMPILE_WORKER", "auto") != "0"
    and _cgroup_pinned
    and "CUDA_VISIBLE_DEVICES" not in os.environ
):
    if os.environ.get("TORCHINDUCTOR_COMPILE_THREADS") in (None, "", "1"):
        os.environ["TORCHINDUCTOR_COMPILE_THREADS"] = "1"
        os.environ["UNSLOTH_FORCE_SINGLE_COMPILE_WORKER"] = "1"
del _nvd, _cgroup_pinned

if os.environ.get("UNSLOTH_FORCE_SINGLE_COMPILE_WORKER", "0") == "1":
    torch._inductor.config.compile_threads = 1
    os.environ["TORCHINDUCTOR_COMPILE_THREADS"] = "1"
