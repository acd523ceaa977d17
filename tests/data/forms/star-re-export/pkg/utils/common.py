# sglang 0.5.23, sglang/srt/utils/common.py:1424: the accessor that ~170 call sites reach,
# most of them through the star re-export of pkg/utils/__init__.py.
import os


def get_bool_env_var(name: str, default: str = "false") -> bool:
    value = os.getenv(name, default)
    value = value.lower()
    return value in ("true", "1")
