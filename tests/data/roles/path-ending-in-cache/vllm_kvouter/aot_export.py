# vllm 0.33.0 vllm/third_party/fmha_sm100/kvouter/aot_export.py:640-710
# The variable names a folder of compiled kernel objects; both sides compile the same kernels.
import atexit
import os
import shutil
import tempfile
from pathlib import Path
from typing import Optional

import cutlass.cute as cute

_CACHE_DIR: Optional[Path] = None


def _cache_dir() -> Path:
    global _CACHE_DIR
    root = os.environ.get("MINIMAX_KERNELS_CUTE_AOT_CACHE")
    if root:
        return Path(root)
    if _CACHE_DIR is None:
        _CACHE_DIR = Path(tempfile.mkdtemp(prefix="fmha_sm100_cute_aot_"))
        atexit.register(shutil.rmtree, str(_CACHE_DIR), True)  # ignore_errors
    return _CACHE_DIR


def _export_one(kernel: str, kernel_obj, template_args: list) -> str:
    cache = _cache_dir()
    cache.mkdir(parents=True, exist_ok=True)
    obj_path = cache / f"{kernel}.o"
    if obj_path.is_file():
        return str(obj_path)
    compiled = cute.compile(kernel_obj, *template_args)
    obj_path.write_bytes(compiled.dump_to_object(kernel))
    return str(obj_path)
