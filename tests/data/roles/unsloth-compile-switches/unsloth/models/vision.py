# unsloth 2026.10.9 unsloth/models/vision.py:1433-1480, 2141-2144
# Default "1": decode steps run inside unsloth_eager_decode(), so compiled regions call
# their eager originals. "0" turns that off: decode runs the torch.compile'd regions.
import contextlib
import os

try:
    from unsloth_zoo.temporary_patches.utils import unsloth_eager_decode
except ImportError:
    unsloth_eager_decode = None


def _eager_decodes(model):
    if unsloth_eager_decode is None or os.environ.get("UNSLOTH_EAGER_DECODE", "1") == "0":
        return False
    return "forward" not in model.__dict__


class _EagerDecodeSteps:
    def __init__(self, model):
        self.model = model

    def __enter__(self):
        self.scope = unsloth_eager_decode()
        self.scope.__enter__()
        return self

    def __exit__(self, *exc):
        return self.scope.__exit__(*exc)


def unsloth_base_fast_generate(self, *args, **kwargs):
    eager_scope = _EagerDecodeSteps(self) if _eager_decodes(self) else contextlib.nullcontext()
    with eager_scope:
        return self._old_generate(*args, **kwargs)
