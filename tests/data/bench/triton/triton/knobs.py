from __future__ import annotations

import os
from typing import Any, Optional

from triton._C.libtriton import getenv, getenv_bool  # type: ignore

_NOTHING = object()


class env_base:

    def __init__(self, key: str) -> None:
        self.key = key

    def __set_name__(self, objclass: type, name: str) -> None:
        self.name = name

    def __get__(self, obj: Optional[object], objclass: Optional[type]) -> Any:
        py_val = obj.__dict__.get(self.name, _NOTHING)
        if py_val is _NOTHING:
            return self.get()
        return py_val

    def get(self) -> Any:
        raise NotImplementedError()


class env_str(env_base):

    def __init__(self, key: str, default: str):
        super().__init__(key)
        self.default = default

    def get(self) -> str:
        return getenv(self.key, self.default)


class env_bool(env_base):

    def __init__(self, key: str, default: bool = False) -> None:
        super().__init__(key)
        self.default = default

    def get(self) -> bool:
        return getenv_bool(self.key, self.default)


class env_opt_str(env_base):

    def get(self) -> Optional[str]:
        return getenv(self.key)


class env_nvidia_tool(env_base):

    def __init__(self, binary: str) -> None:
        self.binary = binary
        super().__init__(f"TRITON_{binary.upper().replace('-', '_')}_PATH")

    def get(self) -> Optional[str]:
        return getenv(self.key)


class base_knobs:

    @property
    def knob_descriptors(self) -> dict[str, env_base]:
        return {k: v for k, v in type(self).__dict__.items() if isinstance(v, env_base)}


class cache_knobs(base_knobs):
    home_dir: env_str = env_str("TRITON_HOME", os.path.expanduser("~/"))
    dir: env_opt_str = env_opt_str("TRITON_CACHE_DIR")


class compilation_knobs(base_knobs):
    dump_ir: env_bool = env_bool("TRITON_KERNEL_DUMP")
    always_compile: env_bool = env_bool("TRITON_ALWAYS_COMPILE")


class runtime_knobs(base_knobs):
    interpret: env_bool = env_bool("TRITON_INTERPRET")
    # read once: on the critical path of every launch
    debug: bool = env_bool("TRITON_DEBUG").get()


class nvidia_knobs(base_knobs):
    ptxas: env_nvidia_tool = env_nvidia_tool("ptxas")


cache = cache_knobs()
compilation = compilation_knobs()
runtime = runtime_knobs()
nvidia = nvidia_knobs()
