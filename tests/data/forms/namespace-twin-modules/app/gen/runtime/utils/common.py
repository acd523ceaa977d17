# sglang/multimodal_gen/runtime/utils/common.py:296 defines an accessor of the same name in
# another namespace package: known as common.get_bool_env_var, a suffix of both imports.
import os


def get_bool_env_var(name: str, default: str = "false") -> bool:
    return os.getenv(name, default).lower() in ("1", "true", "yes")
