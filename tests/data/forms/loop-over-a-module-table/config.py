# lmcache 0.5.6, lmcache/v1/config.py:57, :88 and :999-1016: a config updated from the
# environment by loops over the module's table of definitions and its alias table, the
# name built by a nested helper of one return and bound afresh in each loop.
import os

_ALIASES = {
    "fused_gather": "use_fused_gather",
}

_DEFINITIONS: dict = {
    "chunk_size": {"type": int, "default": 256, "env_converter": int},
    "use_fused_gather": {"type": bool, "default": True, "env_converter": to_bool},
}


def update_from_env(config):
    def env_name_of(attr_name: str) -> str:
        return f"TOY_{attr_name.upper()}"

    found = {}
    for name in _DEFINITIONS:
        env_name = env_name_of(name)
        value = os.getenv(env_name)
#               ^ TOY_CHUNK_SIZE none default="256" function=update_from_env read=getenv
#               ^ TOY_USE_FUSED_GATHER none kind=unknown default="True" function=update_from_env read=getenv
        if value is not None:
            found[name] = value
    for old, new in _ALIASES.items():
        env_name = env_name_of(old)
        value = os.getenv(env_name)
#               ^ TOY_FUSED_GATHER none kind=unknown default="True" function=update_from_env read=getenv
        if value is not None:
            found[new] = value
    return found
