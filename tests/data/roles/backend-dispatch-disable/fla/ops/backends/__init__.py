# fla-org/flash-linear-attention@bc3b101d fla/ops/backends/__init__.py:28-30, 66-71, 160-217
import logging
import os
from functools import wraps

logger = logging.getLogger(__name__)

_DISPATCH_DISABLED = os.environ.get("FLA_DISABLE_BACKEND_DISPATCH") == "1"
if _DISPATCH_DISABLED:
    logger.info("[FLA Backend] FLA_DISABLE_BACKEND_DISPATCH=1 — all dispatch bypassed")


class BaseBackend:
    env_var = None
    default_enable = True

    @classmethod
    def is_enabled(cls) -> bool:
        if cls.env_var is None:
            return True
        return os.environ.get(cls.env_var, "1" if cls.default_enable else "0") != "0"


_REGISTRY: dict = {}


def dispatch(operation: str):
    def decorator(func):
        if _DISPATCH_DISABLED:
            return func

        @wraps(func)
        def wrapper(*args, **kwargs):
            for be in _REGISTRY.get(operation, ()):
                impl = getattr(be, func.__name__, None)
                if be.is_enabled() and impl is not None:
                    return impl(*args, **kwargs)
            return func(*args, **kwargs)

        return wrapper

    return decorator
