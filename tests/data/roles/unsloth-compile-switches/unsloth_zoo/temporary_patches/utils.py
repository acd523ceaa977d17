# unsloth_zoo 2026.10.9 unsloth_zoo/temporary_patches/utils.py:2189-2239 (the other side of the switch)
import contextlib
import threading

import torch

_EAGER_DECODE_STATE = threading.local()


@contextlib.contextmanager
def unsloth_eager_decode():
    previous = getattr(_EAGER_DECODE_STATE, "active", False)
    _EAGER_DECODE_STATE.active = not torch.is_grad_enabled()
    try:
        yield
    finally:
        _EAGER_DECODE_STATE.active = previous


def _eager_during_decode(func):
    compiled = torch.compile(func, dynamic=True, fullgraph=False)

    def dispatch(*args, **kwargs):
        if getattr(_EAGER_DECODE_STATE, "active", False):
            return func(*args, **kwargs)
        return compiled(*args, **kwargs)

    return dispatch
