# sglang 0.5.23 ships sglang/srt without an __init__.py (a namespace package), so this
# module is known as utils.common; sglang/srt/utils/common.py:1424 defines the accessor.
import os


def get_bool_env_var(name: str, default: str = "false") -> bool:
    return os.getenv(name, default).lower() in ("true", "1")
