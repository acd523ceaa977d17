# sglang 0.5.23 sglang/srt/layers/moe/flashinfer_megamoe_autotune.py:79-92, 273-274
# The tree itself points FlashInfer's tactic file at a temporary path and restores it.
import os
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def _native_cache(path: Path):
    name = "FLASHINFER_MOE_EP_KNOB_CACHE"
    previous = os.environ.get(name)
    os.environ[name] = str(path)
    try:
        yield
    finally:
        if previous is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = previous


def prepare_profile(layer, tensors, directory: Path) -> None:
    native_path = directory / "profile0.json"
    with _native_cache(native_path):
        layer.warmup(tensors)
